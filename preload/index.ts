import { contextBridge, ipcRenderer } from 'electron';
import { buildPreloadApi, buildTerminalBridge } from './api';

// Named functions generated from the contract; ipcRenderer itself is never exposed.
contextBridge.exposeInMainWorld('nexus', buildPreloadApi(ipcRenderer));
contextBridge.exposeInMainWorld('nexusTerminal', buildTerminalBridge(ipcRenderer));
