import { describeEveryOperation } from '../../test/helpers/operation-sweep';

// Issue 39: the configuration the README ships, `npm run serve` on a server, has no Secret Service: no D-Bus
// session bus at all. The child gets none of the bus's or the keyring's variables, whatever ran this file.
describeEveryOperation(
  'with no Secret Service on the bus (a server)',
  {
    DBUS_SESSION_BUS_ADDRESS: undefined,
    GNOME_KEYRING_CONTROL: undefined,
    NEXUS_IN_KEYCHAIN: undefined,
    XDG_RUNTIME_DIR: undefined,
    DISPLAY: undefined,
    WAYLAND_DISPLAY: undefined,
  },
  false,
);
