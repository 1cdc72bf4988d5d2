// nexus_splice: moves `length` bytes from one socket to another with splice(2) through a pipe, on a thread of its own,
// so the bytes never enter user space and Node's event loop is not woken per chunk. Linux only (splice is Linux's).
// The caller's descriptors are duplicated at the call: Node may close its own (the browser went away) while the
// thread still runs, and a closed descriptor's number could be reused by an unrelated open.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <node_api.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PIPE_BYTES (1 << 20)
#define ENDED_EARLY -1
#define IDLE -2

typedef struct {
  int src;
  int dst;
  int64_t length;
  int idle_ms;
  int64_t moved;
  int err;
  napi_threadsafe_function tsfn;
} job_t;

/* 0 once `fd` is ready for `events` (or has an error the next call reports), IDLE after idle_ms, else an errno. */
static int wait_for(int fd, short events, int idle_ms) {
  struct pollfd p = {.fd = fd, .events = events};
  for (;;) {
    int r = poll(&p, 1, idle_ms);
    if (r > 0) return 0;
    if (r == 0) return IDLE;
    if (errno != EINTR) return errno;
  }
}

static void move_bytes(job_t *j) {
  int p[2];
  if (pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0) {
    j->err = errno;
    return;
  }
  (void)fcntl(p[1], F_SETPIPE_SZ, PIPE_BYTES); /* a smaller pipe only means more rounds */
  int64_t held = 0;                            /* bytes in the pipe */
  while (j->moved < j->length) {
    int64_t want = j->length - j->moved - held;
    if (want > 0) {
      ssize_t n = splice(j->src, NULL, p[1], NULL, (size_t)want, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
      if (n > 0) held += n;
      else if (n == 0) {
        j->err = ENDED_EARLY;
        break;
      } else if (errno == EAGAIN && held == 0) {
        int w = wait_for(j->src, POLLIN, j->idle_ms);
        if (w != 0) {
          j->err = w;
          break;
        }
        continue;
      } else if (errno != EAGAIN && errno != EINTR) {
        j->err = errno;
        break;
      }
    }
    if (held > 0) {
      ssize_t n = splice(p[0], NULL, j->dst, NULL, (size_t)held, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
      if (n > 0) {
        held -= n;
        j->moved += n;
      } else if (n < 0 && errno == EAGAIN) {
        int w = wait_for(j->dst, POLLOUT, j->idle_ms);
        if (w != 0) {
          j->err = w;
          break;
        }
      } else if (n < 0 && errno != EINTR) {
        j->err = errno;
        break;
      }
    }
  }
  close(p[0]);
  close(p[1]);
}

static void *run(void *arg) {
  job_t *j = arg;
  napi_threadsafe_function tsfn = j->tsfn; /* j is freed on the main thread once called */
  move_bytes(j);
  close(j->src);
  close(j->dst);
  if (napi_call_threadsafe_function(tsfn, j, napi_tsfn_blocking) != napi_ok) free(j);
  napi_release_threadsafe_function(tsfn, napi_tsfn_release);
  return NULL;
}

/* callback(errorCode, message, moved): 0 and null when every byte moved. */
static void call_js(napi_env env, napi_value cb, void *context, void *data) {
  (void)context;
  job_t *j = data;
  if (env != NULL) {
    napi_value args[3], undefined;
    const char *message = j->err == 0             ? NULL
                          : j->err == ENDED_EARLY ? "the source ended before the length"
                          : j->err == IDLE        ? "no byte moved within the idle time"
                                                  : strerror(j->err);
    napi_create_int32(env, j->err, &args[0]);
    if (message) napi_create_string_utf8(env, message, NAPI_AUTO_LENGTH, &args[1]);
    else napi_get_null(env, &args[1]);
    napi_create_double(env, (double)j->moved, &args[2]);
    napi_get_undefined(env, &undefined);
    napi_call_function(env, undefined, cb, 3, args, NULL);
  }
  free(j);
}

static napi_value fail(napi_env env, const char *message) {
  napi_throw_error(env, NULL, message);
  return NULL;
}

/* move(srcFd, dstFd, length, idleMs, callback) */
static napi_value Move(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 5)
    return fail(env, "move(srcFd, dstFd, length, idleMs, callback)");
  int32_t src, dst, idle;
  int64_t length;
  napi_valuetype cbType;
  if (napi_get_value_int32(env, argv[0], &src) != napi_ok || napi_get_value_int32(env, argv[1], &dst) != napi_ok ||
      napi_get_value_int64(env, argv[2], &length) != napi_ok || napi_get_value_int32(env, argv[3], &idle) != napi_ok ||
      napi_typeof(env, argv[4], &cbType) != napi_ok || cbType != napi_function || src < 0 || dst < 0 || length < 0 ||
      idle <= 0)
    return fail(env, "move(srcFd, dstFd, length, idleMs, callback): two descriptors, a length, an idle time, a callback");
  job_t *j = calloc(1, sizeof *j);
  if (!j) return fail(env, "out of memory");
  j->length = length;
  j->idle_ms = idle;
  j->src = fcntl(src, F_DUPFD_CLOEXEC, 0);
  j->dst = fcntl(dst, F_DUPFD_CLOEXEC, 0);
  napi_value name;
  napi_create_string_utf8(env, "nexus-splice", NAPI_AUTO_LENGTH, &name);
  pthread_attr_t attr;
  pthread_t thread;
  if (j->src < 0 || j->dst < 0 ||
      napi_create_threadsafe_function(env, argv[4], NULL, name, 0, 1, NULL, NULL, NULL, call_js, &j->tsfn) != napi_ok) {
    if (j->src >= 0) close(j->src);
    if (j->dst >= 0) close(j->dst);
    free(j);
    return fail(env, "could not take the descriptors");
  }
  /* A transfer does not keep the process alive by itself: quitting Nexus cuts it, as it cuts any download. */
  napi_unref_threadsafe_function(env, j->tsfn);
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  int started = pthread_create(&thread, &attr, run, j);
  pthread_attr_destroy(&attr);
  if (started != 0) {
    napi_release_threadsafe_function(j->tsfn, napi_tsfn_abort);
    close(j->src);
    close(j->dst);
    free(j);
    return fail(env, "could not start a thread");
  }
  return NULL;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "move", NAPI_AUTO_LENGTH, Move, NULL, &fn);
  napi_set_named_property(env, exports, "move", fn);
  return exports;
}
