// Off Linux there is no splice(2): the module exports nothing and the preview proxy moves bodies in JS.
#include <node_api.h>

NAPI_MODULE_INIT() {
  (void)env;
  return exports;
}
