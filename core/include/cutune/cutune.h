/* cutune: the public API shared by applications, the cutune command and plugins.
 *
 * Conventions: functions return int, 0 on success and a negative CUTUNE_ERR_* code
 * on failure. Functions that can fail for a reason a person must read take a
 * CutuneError *; the message says what went wrong, where, and how to fix it.
 * Passing NULL for it is allowed and drops the message. */
#ifndef CUTUNE_CUTUNE_H
#define CUTUNE_CUTUNE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CUTUNE_VERSION "0.1.0"

/* Marks the functions libcutune exports: the public API is exactly the functions declared
 * with it in these headers. The library is built with every other symbol hidden. */
#if defined(__GNUC__)
#define CUTUNE_API __attribute__((visibility("default")))
#else
#define CUTUNE_API
#endif

/* One table makes both the enum and cutune_strerror(). */
#define CUTUNE_ERROR_TABLE(X) \
    X(OK, 0, "success") \
    X(INVALID, -1, "invalid argument") \
    X(NOMEM, -2, "out of memory") \
    X(IO, -3, "input/output error") \
    X(PARSE, -4, "syntax error") \
    X(NO_DEVICE, -5, "no CUDA driver or device") \
    X(CUDA, -6, "CUDA error") \
    X(COMPILE, -7, "kernel compilation failed") \
    X(DB, -8, "database error") \
    X(PLUGIN, -9, "bad plugin") \
    X(NOT_FOUND, -10, "not found") \
    X(RANGE, -11, "value out of range") \
    X(WRONG_RESULT, -12, "wrong result") \
    X(RESOURCES, -13, "config exceeds device resources") \
    X(INTERRUPTED, -14, "interrupted")

enum CutuneErrorCode {
#define CUTUNE_X_ENUM(name, value, text) CUTUNE_ERR_##name = value,
    CUTUNE_ERROR_TABLE(CUTUNE_X_ENUM)
#undef CUTUNE_X_ENUM
};

/* A message for a person. Filled by the first failure; later ones do not overwrite it. */
typedef struct CutuneError {
    int code;
    char msg[1024];
} CutuneError;

/* Static text for an error code; never NULL. */
CUTUNE_API const char *cutune_strerror(int code);

/* Record code and a printf-style message in err (if err is non-NULL and still empty).
 * Returns code, so that `return cutune_error(err, CUTUNE_ERR_IO, "...")` reads well. */
CUTUNE_API int cutune_error(CutuneError *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Clear err so that it can take the next message. */
CUTUNE_API void cutune_error_clear(CutuneError *err);

/* The status of one trial (one config measured on one device for one problem).
 * The text names are what the database stores. */
#define CUTUNE_STATUS_TABLE(X) \
    X(OK, "ok") \
    X(WRONG_RESULT, "wrong_result") \
    X(COMPILE_ERROR, "compile_error") \
    X(LAUNCH_ERROR, "launch_error") \
    X(SKIPPED_RESOURCES, "skipped_resources") \
    X(TIMEOUT, "timeout") \
    X(CRASHED, "crashed")

typedef enum CutuneStatus {
#define CUTUNE_X_STATUS(name, text) CUTUNE_STATUS_##name,
    CUTUNE_STATUS_TABLE(CUTUNE_X_STATUS)
#undef CUTUNE_X_STATUS
        CUTUNE_STATUS_COUNT
} CutuneStatus;

/* "ok", "wrong_result", ...; "unknown" for an out-of-range value. */
CUTUNE_API const char *cutune_status_name(CutuneStatus s);
/* Parse a status name; returns -1 if it is not one. */
CUTUNE_API int cutune_status_parse(const char *name);

/* What cutune records about a GPU. Strings are NUL-terminated and owned by the struct. */
typedef struct CutuneDeviceInfo {
    int index; /* CUDA ordinal in this process */
    char name[256];
    char uuid[64]; /* "GPU-xxxxxxxx-xxxx-..." */
    int cc_major, cc_minor;
    int sm_count;
    uint64_t total_mem; /* bytes */
    int max_threads_per_block;
    int max_shared_per_block; /* bytes, opt-in maximum for dynamic shared memory */
    int max_shared_per_sm;    /* bytes */
    int max_regs_per_block;
    int warp_size;
    int l2_bytes;
    int driver_version; /* e.g. 13000 */
    int runtime_version;
} CutuneDeviceInfo;

#ifdef __cplusplus
}
#endif
#endif
