/* Output files that appear whole or not at all, and never over an input.
 *
 * Every file cutune writes (exports, replay CSV and SVG, reports, merged databases) goes
 * through here:
 *
 *     CutuneOutFile o;
 *     if (cutune_outfile_refuse_input(path, inputs, ninputs, &err) ||
 *         cutune_outfile_open(&o, path, &err))
 *         ...fail...
 *     fprintf(o.f, ...);                          (or write to o.fd)
 *     if (cutune_outfile_commit(&o, &err))        the target now holds the new content
 *         ...fail...                              or still the old one, never a mix
 *
 * The content goes to a temporary file in the target's folder (same filesystem, so that
 * the final rename(2) is atomic), named for the process that writes it:
 * ".NAME.PID-HOST.RANDOM.tmp", HOST a tag of this machine's name and PID namespace, so that
 * the file of a process that was killed (SIGKILL leaves it) can be told from a live one's
 * (cutune_outfile_remove_stale). Commit checks every step: fflush, fsync, close, rename,
 * then fsyncs the folder. Any failure, or cutune_outfile_abort, removes the temporary file
 * and leaves the previous target exactly as it was.
 *
 * A target that exists and is not a regular file (a terminal, /dev/null, /dev/full, a
 * FIFO) cannot be replaced: it is written in place, and commit still reports a failed
 * write. A symbolic link is followed: the file it points to is replaced, the link stays. */
#ifndef CUTUNE_OUTFILE_H
#define CUTUNE_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

#include "cutune/cutune.h"

typedef struct CutuneOutFile {
    FILE *f;      /* write here; owned until commit or abort */
    char *target; /* the path the content will have (a symlink resolved) */
    char *tmp;    /* the temporary file, or NULL when writing in place */
} CutuneOutFile;

/* Refuse `output` when it is the same file as one of inputs[0..ninputs-1], by
 * cutune_outfile_same_place: through any link or spelling of the path, and also when the
 * input does not exist yet (a database's -wal file appears when it is opened). NULL
 * entries are skipped. Call it before anything is opened for writing. Returns 0 or CUTUNE_ERR_INVALID, with a message naming
 * both paths. */
int cutune_outfile_refuse_input(const char *output, const char *const *inputs, size_t ninputs,
                                CutuneError *err);

/* 1 when paths a and b name the same file, whether or not it exists yet: the same device
 * and inode when both exist, else the same folder (by device and inode) and the same last
 * component. A database's -wal file that is not there now will be when SQLite opens it. */
int cutune_outfile_same_place(const char *a, const char *b);

/* Start writing `path`. On failure (folder missing or not writable, no memory) o is left
 * empty and err names the path. */
int cutune_outfile_open(CutuneOutFile *o, const char *path, CutuneError *err);

/* Finish: flush, fsync, close and rename over the target. Returns 0, or CUTUNE_ERR_IO with
 * the step and the system's reason (a full disk says so); o is empty afterwards either way,
 * and on failure the target is as it was before open. */
int cutune_outfile_commit(CutuneOutFile *o, CutuneError *err);

/* A temporary file beside target, created empty and named as above, for a writer that is
 * not a stream (a database being built): *path (malloc'ed) gets its name. 0, or
 * CUTUNE_ERR_IO naming the folder. */
int cutune_outfile_temp(const char *target, char **path, CutuneError *err);

/* Remove the temporary files of target (and the -wal, -shm and -journal files SQLite keeps
 * beside them) that a process of this machine left when it died: those whose process no
 * longer exists. A live process's file is never removed, nor one of another machine
 * sharing the folder. Returns how many temporary files were removed. */
int cutune_outfile_remove_stale(const char *target);

/* Give up: close and remove the temporary file; the target is untouched. NULL-safe, and
 * safe on an empty or already finished o. */
void cutune_outfile_abort(CutuneOutFile *o);

#endif
