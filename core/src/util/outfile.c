/* Atomic output files (see outfile.h). */
#include "outfile.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int cutune_outfile_refuse_input(const char *output, const char *const *inputs, size_t ninputs,
                                CutuneError *err)
{
    if (!output)
        return 0;
    for (size_t i = 0; i < ninputs; i++) {
        if (!inputs || !inputs[i])
            continue;
        if (cutune_outfile_same_place(output, inputs[i]))
            return cutune_error(err, CUTUNE_ERR_INVALID,
                                "the output %s is the input %s (the same file): writing it "
                                "would destroy what is being read; nothing was written. "
                                "Choose another output path",
                                output, inputs[i]);
    }
    return 0;
}

/* The folder part of path ("." when none) into buf. */
static void folder_of(const char *path, char *buf, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(buf, len, ".");
    else
        snprintf(buf, len, "%.*s", slash == path ? 1 : (int)(slash - path), path);
}

int cutune_outfile_same_place(const char *a, const char *b)
{
    struct stat sa, sb;
    int ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
    if (ea && eb)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    if (ea != eb)
        return 0;
    char da[PATH_MAX], db[PATH_MAX];
    folder_of(a, da, sizeof da);
    folder_of(b, db, sizeof db);
    const char *ba = strrchr(a, '/'), *bb = strrchr(b, '/');
    ba = ba ? ba + 1 : a;
    bb = bb ? bb + 1 : b;
    return strcmp(ba, bb) == 0 && stat(da, &sa) == 0 && stat(db, &sb) == 0 &&
           sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* What a failed write means for a person. */
static const char *why(int e)
{
    return e == ENOSPC || e == EDQUOT || e == EFBIG
               ? "the disk is full, or a quota or file size limit was reached"
               : strerror(e);
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

static void clear(CutuneOutFile *o)
{
    free(o->target);
    free(o->tmp);
    memset(o, 0, sizeof *o);
}

/* This machine and PID namespace, as 8 hex digits: a process id in a temporary file's name
 * means a process of the place that wrote it only. */
static void host_tag(char out[9])
{
    static char tag[9];
    if (!tag[0]) {
        char host[256] = "", ns[128] = "";
        CutuneHash h;
        (void)gethostname(host, sizeof host - 1);
        ssize_t n = readlink("/proc/self/ns/pid", ns, sizeof ns - 1);
        ns[n > 0 ? n : 0] = '\0';
        cutune_hash_init(&h);
        cutune_hash_str(&h, host);
        cutune_hash_str(&h, ns);
        char hex[33];
        cutune_hash_hex(&h, hex);
        memcpy(tag, hex, 8);
        tag[8] = '\0';
    }
    memcpy(out, tag, 9);
}

/* A fresh name beside the target, ".NAME.PID-HOST.RANDOM.tmp" (".NAME.RANDOM.tmp" when the
 * longer one would not fit a file name), created with O_EXCL so that nothing is
 * overwritten; mode 0666 lets the umask decide, as for any new file. Returns the descriptor
 * or -1. */
static int create_temp(const char *target, char **tmp_out)
{
    const char *slash = strrchr(target, '/');
    size_t dirlen = slash ? (size_t)(slash - target) + 1 : 0;
    const char *base = slash ? slash + 1 : target;
    size_t cap = strlen(target) + 64;
    char *tmp = malloc(cap);
    if (!tmp) {
        errno = ENOMEM;
        return -1;
    }
    char owner[40], tag[9];
    host_tag(tag);
    snprintf(owner, sizeof owner, "%ld-%s.", (long)getpid(), tag);
    if (strlen(base) + strlen(owner) + 12 > NAME_MAX)
        owner[0] = '\0';
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)tmp;
    for (int attempt = 0; attempt < 100; attempt++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        snprintf(tmp, cap, "%.*s.%s.%s%06llx.tmp", (int)dirlen, target, base, owner,
                 (unsigned long long)(x >> 40));
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            *tmp_out = tmp;
            return fd;
        }
        if (errno != EEXIST)
            break;
    }
    free(tmp);
    return -1;
}

int cutune_outfile_temp(const char *target, char **path, CutuneError *err)
{
    *path = NULL;
    int fd = create_temp(target, path);
    if (fd < 0)
        return cutune_error(err, errno == ENOMEM ? CUTUNE_ERR_NOMEM : CUTUNE_ERR_IO,
                            "cannot write beside %s: creating a temporary file in its folder "
                            "failed: %s; check that the folder is writable",
                            target, why(errno));
    close(fd);
    return 0;
}

/* The process id in a temporary file's name "PID-HOST.RANDOM.tmp[-wal|-shm|-journal]" (what
 * follows ".NAME."), when HOST is this place's tag; 0 when the name is not one of those. */
static long temp_owner(const char *rest)
{
    char tag[9];
    host_tag(tag);
    char *end = NULL;
    errno = 0;
    long pid = strtol(rest, &end, 10);
    if (errno || end == rest || pid <= 0 || *end != '-' || strncmp(end + 1, tag, 8) != 0 ||
        end[9] != '.')
        return 0;
    const char *r = end + 10;
    if (strspn(r, "0123456789abcdef") != 6 || strncmp(r + 6, ".tmp", 4) != 0)
        return 0;
    r += 10;
    return !*r || !strcmp(r, "-wal") || !strcmp(r, "-shm") || !strcmp(r, "-journal") ? pid : 0;
}

/* Remove the temporary files of target's name in its folder whose process is gone. */
static int remove_stale_in(const char *target)
{
    char dir[PATH_MAX], prefix[NAME_MAX + 4], path[PATH_MAX + NAME_MAX + 2];
    folder_of(target, dir, sizeof dir);
    const char *slash = strrchr(target, '/');
    snprintf(prefix, sizeof prefix, ".%s.", slash ? slash + 1 : target);
    size_t plen = strlen(prefix);
    DIR *d = opendir(dir);
    int removed = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        if (strncmp(e->d_name, prefix, plen) != 0)
            continue;
        long pid = temp_owner(e->d_name + plen);
        /* EPERM: the process lives, as another user's */
        if (pid <= 0 || pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (unlink(path) == 0 && !strstr(e->d_name + plen, ".tmp-"))
            removed++;
    }
    if (d)
        closedir(d);
    return removed;
}

int cutune_outfile_remove_stale(const char *target)
{
    if (!target || !*target)
        return 0;
    int removed = remove_stale_in(target);
    char resolved[PATH_MAX];
    struct stat lst;
    /* a link's target is where cutune_outfile_open writes */
    if (lstat(target, &lst) == 0 && S_ISLNK(lst.st_mode) && realpath(target, resolved))
        removed += remove_stale_in(resolved);
    return removed;
}

int cutune_outfile_open(CutuneOutFile *o, const char *path, CutuneError *err)
{
    if (!o)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_outfile_open: no output");
    memset(o, 0, sizeof *o);
    if (!path || !*path)
        return cutune_error(err, CUTUNE_ERR_INVALID, "no output path given");
    struct stat st;
    int exists = stat(path, &st) == 0;
    char resolved[PATH_MAX];
    struct stat lst;
    /* a link is followed: the file it names is replaced, the link itself stays */
    const char *target = exists && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode) &&
                                 realpath(path, resolved)
                             ? resolved
                             : path;
    if (!(o->target = dup_str(target)))
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    if (exists && S_ISDIR(st.st_mode)) {
        clear(o);
        return cutune_error(err, CUTUNE_ERR_INVALID,
                            "cannot write %s: it is a folder; give a "
                            "file name",
                            path);
    }
    if (exists && !S_ISREG(st.st_mode)) {
        /* a device or a pipe cannot be replaced by a rename: write it in place */
        if (!(o->f = fopen(o->target, "w"))) {
            int e = errno;
            clear(o);
            return cutune_error(err, CUTUNE_ERR_IO, "cannot write %s: %s", path, strerror(e));
        }
        return 0;
    }
    int fd = create_temp(o->target, &o->tmp);
    if (fd < 0) {
        int e = errno;
        clear(o);
        return cutune_error(err, CUTUNE_ERR_IO,
                            "cannot write %s: creating a file in its folder failed: %s; check "
                            "that the folder exists and is writable",
                            path, why(e));
    }
    if (exists)
        (void)fchmod(fd, st.st_mode & 07777); /* keep the old file's permissions; best effort */
    if (!(o->f = fdopen(fd, "w"))) {
        int e = errno;
        close(fd);
        unlink(o->tmp);
        clear(o);
        return cutune_error(err, CUTUNE_ERR_IO, "cannot write %s: %s", path, strerror(e));
    }
    return 0;
}

/* fsync the folder holding path, so that the rename itself is durable. Best effort: the
 * new content is already in place whatever this says. */
static void sync_folder(const char *path)
{
    char dir[PATH_MAX];
    folder_of(path, dir, sizeof dir);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
}

int cutune_outfile_commit(CutuneOutFile *o, CutuneError *err)
{
    if (!o || !o->f)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_outfile_commit: nothing open");
    const char *step = "writing";
    int e = 0;
    errno = 0;
    if (fflush(o->f) != 0 || ferror(o->f))
        e = errno ? errno : EIO;
    else if (fsync(fileno(o->f)) != 0 && (o->tmp || (errno != EINVAL && errno != EROFS)))
        e = errno, step = "syncing it to disk";
    int closed = fclose(o->f);
    o->f = NULL;
    if (!e && closed != 0)
        e = errno ? errno : EIO, step = "closing it";
    if (!e && o->tmp && rename(o->tmp, o->target) != 0)
        e = errno, step = "renaming it into place";
    if (e) {
        if (o->tmp)
            unlink(o->tmp);
        int code = cutune_error(err, CUTUNE_ERR_IO, "writing %s failed (%s): %s; %s", o->target,
                                step, why(e),
                                o->tmp ? "the previous file, if any, is unchanged"
                                       : "what was written is incomplete");
        clear(o);
        return code;
    }
    if (o->tmp)
        sync_folder(o->target);
    clear(o);
    return 0;
}

void cutune_outfile_abort(CutuneOutFile *o)
{
    if (!o)
        return;
    if (o->f)
        fclose(o->f);
    if (o->tmp)
        unlink(o->tmp);
    clear(o);
}
