import { contextBridge, ipcRenderer } from 'electron';
import { buildPreloadApi } from './api';

// Named functions generated from the contract; ipcRenderer itself is never exposed.
contextBridge.exposeInMainWorld('nexus', buildPreloadApi(ipcRenderer));
