/* The wire protocol between cutune and its worker process (cutune-worker).
 *
 * Kernels under tuning are untested code: one can fault, hang or break its CUDA context.
 * They therefore run in a separate process that the tuner can kill and replace; the two
 * talk over a UNIX socket with length-prefixed binary messages:
 *
 *     u32 type, u32 payload length, payload
 *
 * Payloads are sequences of fields (u32, i32, u64, i64, f64 in host byte order, and byte
 * strings as u32 length + bytes). Both ends are built from the same tree and run on the
 * same machine, so POD structs (CutuneDeviceInfo, CutuneProblem, CutuneMeasureSettings,
 * CutuneEvalResult) travel as byte strings whose length is checked; the hello message
 * carries CUTUNE_PROTO_VERSION so that a stale worker is refused.
 *
 *   parent -> worker                          worker -> parent
 *   HELLO    u32 version, i32 device          DEVICE  CutuneDeviceInfo, u32 SM clock kHz,
 *                                                     u32 memory clock kHz (0: unknown)
 *                                             | ERROR
 *   SETUP    str contract path (the op plugin,  OK | ERROR
 *            or a self-contained variant
 *            plugin), CutuneProblem, u64 seed,
 *            i32 arch, str cache dir
 *   EVAL     u32 n, n x (str name, i64 value), RESULT  CutuneEvalResult
 *            bytes cubin, str kernel name,
 *            str library, CutuneLaunch,
 *            CutuneTensorMaps,
 *            f64 best_ms, CutuneMeasureSettings
 * The tuner works out the launch geometry (it has the space and the [launch] expressions);
 * the worker holds only the op's contract, the inputs and the CUDA context. `library` is ""
 * for a kernel; for a library variant (cutune/plugin.h, ABI 1.5) it is the path of its C
 * plugin, which the worker loads to call its library_prepare and library_run (the cubin is
 * then empty, the kernel name "" and the launch unused). CutuneTensorMaps (registry/
 * tensor_maps.h) are the kernel's TMA descriptors as the tuner evaluated them for the config
 * and problem (n 0: none); the worker encodes each enabled one on the address of its argument
 * and passes them after the op's arguments.
 *   YARDSTICK CutuneMeasureSettings           YARDSTICK_RESULT str name, CutuneEvalResult
 *                                             | ERROR (CUTUNE_ERR_NOT_FOUND: none, or its
 *                                               library is missing)
 *   TEARDOWN                                  OK
 *   COUNT                                     OK  u32 the CUDA devices the worker sees |
 *                                             ERROR (sent before HELLO, by itself: it
 *                                             opens no device)
 *   COMPILE  str source, str kernel name,     COMPILED i32 rc, str message, str log,
 *            u32 n, n x str NVRTC option               bytes cubin (rc 0: the cubin;
 *            (no HELLO first: a compile                else NVRTC's failure)
 *            process opens no device)
 *   (closing the socket ends the worker)
 *   ERROR is i32 code, str message. After a RESULT with context_lost set the worker exits. */
#ifndef CUTUNE_PROTO_H
#define CUTUNE_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "cutune/cutune.h"

#define CUTUNE_PROTO_VERSION \
    9 /* 5: CutuneProblem carries an element type and a layout;
                                  6: EVAL names a library variant's plugin;
                                  7: DEVICE carries the peak clocks; COUNT;
                                  8: EVAL carries the config's TMA tensor maps;
                                  9: COMPILE */
#define CUTUNE_PROTO_MAX_PAYLOAD (256u << 20) /* far above any cubin */

enum CutuneMsgType {
    CUTUNE_MSG_HELLO = 1,
    CUTUNE_MSG_SETUP = 2,
    CUTUNE_MSG_EVAL = 3,
    CUTUNE_MSG_TEARDOWN = 4,
    CUTUNE_MSG_YARDSTICK = 5,
    CUTUNE_MSG_COUNT = 6,
    CUTUNE_MSG_COMPILE = 7,
    CUTUNE_MSG_OK = 16,
    CUTUNE_MSG_ERROR = 17,
    CUTUNE_MSG_DEVICE = 18,
    CUTUNE_MSG_RESULT = 19,
    CUTUNE_MSG_YARDSTICK_RESULT = 20,
    CUTUNE_MSG_COMPILED = 21,
};

/* A growable payload being written, or a received payload being read. Reading past the end
 * or a malformed field sets `bad` and yields zeros, so a decoder checks once at the end. */
typedef struct CutuneBuf {
    unsigned char *data;
    size_t len, cap, pos;
    int bad;
} CutuneBuf;

void cutune_buf_free(CutuneBuf *b);
/* Empty the buffer for reuse (keeps its memory). */
void cutune_buf_reset(CutuneBuf *b);

/* Appenders: on allocation failure they set b->bad. */
void cutune_buf_put_u32(CutuneBuf *b, uint32_t v);
void cutune_buf_put_i64(CutuneBuf *b, int64_t v);
void cutune_buf_put_f64(CutuneBuf *b, double v);
void cutune_buf_put_bytes(CutuneBuf *b, const void *p, size_t n);
/* A string travels with its terminating NUL; NULL travels as "". */
void cutune_buf_put_str(CutuneBuf *b, const char *s);

uint32_t cutune_buf_get_u32(CutuneBuf *b);
int64_t cutune_buf_get_i64(CutuneBuf *b);
double cutune_buf_get_f64(CutuneBuf *b);
/* A pointer into the buffer (valid while it lives) and the length; NULL when bad. */
const void *cutune_buf_get_bytes(CutuneBuf *b, size_t *n);
/* Exactly n bytes into dst (a POD struct); a length mismatch sets bad. */
void cutune_buf_get_struct(CutuneBuf *b, void *dst, size_t n);
/* A NUL-terminated string inside the buffer; "" and bad when malformed. */
const char *cutune_buf_get_str(CutuneBuf *b);

/* Send one message (the whole of b->data[0..len)). Never raises SIGPIPE. Returns 0 or
 * CUTUNE_ERR_IO (the peer is gone). */
int cutune_msg_send(int fd, uint32_t type, const CutuneBuf *b);
/* Receive one message into b (reset first; b->pos at 0). Blocks. Returns 0,
 * CUTUNE_ERR_IO (EOF or error: the peer is gone) or CUTUNE_ERR_RANGE (oversized). */
int cutune_msg_recv(int fd, uint32_t *type, CutuneBuf *b);

#endif
