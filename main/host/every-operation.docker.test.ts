import { describeEveryOperation } from '../../test/helpers/operation-sweep';

// The desktop configuration: run under scripts/with-keychain.sh, the child inherits its Secret Service.
describeEveryOperation('under the desktop keychain (Secret Service)', {}, true);
