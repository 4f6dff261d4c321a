/* The worker wire protocol: payload fields and message framing (see proto.h). */
#include "proto.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

void cutune_buf_free(CutuneBuf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

void cutune_buf_reset(CutuneBuf *b)
{
    b->len = b->pos = 0;
    b->bad = 0;
}

static int reserve(CutuneBuf *b, size_t more)
{
    if (b->bad)
        return -1;
    if (more > CUTUNE_PROTO_MAX_PAYLOAD || b->len + more > CUTUNE_PROTO_MAX_PAYLOAD) {
        b->bad = 1;
        return -1;
    }
    if (b->len + more <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + more)
        cap *= 2;
    unsigned char *d = realloc(b->data, cap);
    if (!d) {
        b->bad = 1;
        return -1;
    }
    b->data = d;
    b->cap = cap;
    return 0;
}

static void put(CutuneBuf *b, const void *p, size_t n)
{
    if (reserve(b, n) == 0 && n) {
        memcpy(b->data + b->len, p, n);
        b->len += n;
    }
}

void cutune_buf_put_u32(CutuneBuf *b, uint32_t v)
{
    put(b, &v, sizeof v);
}
void cutune_buf_put_i64(CutuneBuf *b, int64_t v)
{
    put(b, &v, sizeof v);
}
void cutune_buf_put_f64(CutuneBuf *b, double v)
{
    put(b, &v, sizeof v);
}

void cutune_buf_put_bytes(CutuneBuf *b, const void *p, size_t n)
{
    if (n > UINT32_MAX) {
        b->bad = 1;
        return;
    }
    cutune_buf_put_u32(b, (uint32_t)n);
    put(b, p, n);
}

void cutune_buf_put_str(CutuneBuf *b, const char *s)
{
    if (!s)
        s = "";
    cutune_buf_put_bytes(b, s, strlen(s) + 1);
}

static int get(CutuneBuf *b, void *dst, size_t n)
{
    if (b->bad || n > b->len - b->pos) {
        b->bad = 1;
        memset(dst, 0, n);
        return -1;
    }
    memcpy(dst, b->data + b->pos, n);
    b->pos += n;
    return 0;
}

uint32_t cutune_buf_get_u32(CutuneBuf *b)
{
    uint32_t v;
    get(b, &v, sizeof v);
    return v;
}

int64_t cutune_buf_get_i64(CutuneBuf *b)
{
    int64_t v;
    get(b, &v, sizeof v);
    return v;
}

double cutune_buf_get_f64(CutuneBuf *b)
{
    double v;
    get(b, &v, sizeof v);
    return v;
}

const void *cutune_buf_get_bytes(CutuneBuf *b, size_t *n)
{
    uint32_t len = cutune_buf_get_u32(b);
    *n = 0;
    if (b->bad || len > b->len - b->pos) {
        b->bad = 1;
        return NULL;
    }
    const void *p = b->data + b->pos;
    b->pos += len;
    *n = len;
    return p;
}

void cutune_buf_get_struct(CutuneBuf *b, void *dst, size_t n)
{
    size_t got;
    const void *p = cutune_buf_get_bytes(b, &got);
    if (!p || got != n) {
        b->bad = 1;
        memset(dst, 0, n);
        return;
    }
    memcpy(dst, p, n);
}

const char *cutune_buf_get_str(CutuneBuf *b)
{
    size_t n;
    const char *p = cutune_buf_get_bytes(b, &n);
    if (!p || n == 0 || p[n - 1] != '\0' || memchr(p, '\0', n) != p + n - 1) {
        b->bad = 1;
        return "";
    }
    return p;
}

/* Sends out[0..n) when out is given, else reads n bytes into in, through EINTR;
 * CUTUNE_ERR_IO on an error or the peer's end. */
static int transfer_all(int fd, const void *out, void *in, size_t n)
{
    size_t done = 0;
    while (done < n) {
        ssize_t k = out ? send(fd, (const char *)out + done, n - done, MSG_NOSIGNAL)
                        : read(fd, (char *)in + done, n - done);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return CUTUNE_ERR_IO;
        done += (size_t)k;
    }
    return 0;
}

static int send_all(int fd, const void *p, size_t n)
{
    return transfer_all(fd, p, NULL, n);
}

static int recv_all(int fd, void *p, size_t n)
{
    return transfer_all(fd, NULL, p, n);
}

int cutune_msg_send(int fd, uint32_t type, const CutuneBuf *b)
{
    if (b && b->bad)
        return CUTUNE_ERR_NOMEM;
    uint32_t hdr[2] = {type, b ? (uint32_t)b->len : 0};
    int rc = send_all(fd, hdr, sizeof hdr);
    if (rc == 0 && b && b->len)
        rc = send_all(fd, b->data, b->len);
    return rc;
}

int cutune_msg_recv(int fd, uint32_t *type, CutuneBuf *b)
{
    uint32_t hdr[2];
    cutune_buf_reset(b);
    int rc = recv_all(fd, hdr, sizeof hdr);
    if (rc)
        return rc;
    if (hdr[1] > CUTUNE_PROTO_MAX_PAYLOAD)
        return CUTUNE_ERR_RANGE;
    if (reserve(b, hdr[1]))
        return CUTUNE_ERR_NOMEM;
    if ((rc = recv_all(fd, b->data, hdr[1])))
        return rc;
    b->len = hdr[1];
    *type = hdr[0];
    return 0;
}
