/* Reading a variant's known-good configs (see space.h). */
#include "space.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int cutune_known_read(const char *path, int (*fn)(const char *config, int line, void *user),
                      void *user, CutuneError *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return errno == ENOENT ? 0
                               : cutune_error(err, CUTUNE_ERR_IO, "%s: cannot read it: %s", path,
                                              strerror(errno));
    char line[2048];
    int n = 0, rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        n++;
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n') {
            rc = cutune_error(err, CUTUNE_ERR_PARSE,
                              "%s:%d: line longer than %zu characters; "
                              "one config per line",
                              path, n, sizeof line - 2);
            break;
        }
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        len = strlen(line);
        while (len && strchr("\n\r \t", line[len - 1]))
            line[--len] = '\0';
        char *p = line + strspn(line, " \t");
        if (*p && fn(p, n, user) != 0)
            break;
    }
    if (rc == 0 && ferror(f))
        rc = cutune_error(err, CUTUNE_ERR_IO, "%s: read error", path);
    fclose(f);
    return rc;
}
