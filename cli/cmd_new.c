/* cutune new variant: the two files of a new variant, ready to edit. */
#include "cli.h"
#include "registry.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char help[] =
    "usage: cutune new variant <op> <name> [--from VARIANT] [--dir DIR]\n"
    "\n"
    "Write DIR/<name>.cu and DIR/<name>.ini, a new variant of <op>, ready to edit:\n"
    "  --from VARIANT  a copy of that variant (a variant as data of the same op, on the\n"
    "                  space path or in DIR): its kernel file with the kernel renamed\n"
    "                  <name>, and its INI with the new name, version 1, and its\n"
    "                  parameters, constraints, launch and sizes\n"
    "  (default)       a minimal kernel with the op's parameters and one BLOCK parameter,\n"
    "                  which compiles but computes nothing yet\n"
    "  --dir DIR       where to write them (default: your variants folder,\n"
    "                  $XDG_DATA_HOME/cutune/tuning_spaces or ~/.local/share/cutune/\n"
    "                  tuning_spaces, which cutune searches without any variable)\n"
    "\n"
    "<name> is the kernel's name too: a C identifier (not a digit first, not a keyword).\n"
    "Existing files are never overwritten, and a write that fails (a full disk) leaves no\n"
    "file or folder behind. Then: `cutune check <name>`, `cutune run <op> --variant\n"
    "<name>`, `cutune query <op> --size S` (docs/variants.md, \"Writing a variant\").\n";

/* Your variants folder: first on the space path after CUTUNE_SPACE_PATH. */
static int user_dir(char *buf, size_t len)
{
    return cutune_xdg_path(NULL, CUTUNE_XDG_DATA, "tuning_spaces", buf, len) == 0 ? 0 : -1;
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *s = NULL;
    size_t n = 0;
    for (;;) {
        char chunk[8192];
        size_t got = fread(chunk, 1, sizeof chunk, f);
        if (!got)
            break;
        char *g = realloc(s, n + got + 1);
        if (!g) {
            free(s);
            s = NULL;
            break;
        }
        s = g;
        memcpy(s + n, chunk, got);
        n += got;
        s[n] = '\0';
    }
    fclose(f);
    return s ? s : strdup("");
}

/* Write text to a new file; fails when it exists. */
static int write_new(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) {
        fprintf(stderr, "cutune new: cannot create %s: %s%s\n", path, strerror(errno),
                errno == EEXIST ? " (remove it, or choose another name or --dir)" : "");
        return -1;
    }
    FILE *f = fdopen(fd, "w");
    int bad = !f || fputs(text, f) < 0;
    if (f)
        bad |= fclose(f) != 0;
    else
        close(fd);
    if (bad) { /* a full disk: no empty or cut file is left */
        fprintf(stderr, "cutune new: cannot write %s: %s\n", path, strerror(errno));
        unlink(path);
    }
    return bad ? -1 : 0;
}

/* Drop the last component of the path in p (n bytes long), and the slashes before it;
 * returns the new length ("/" stays). */
static size_t parent(char *p, size_t n)
{
    while (n > 1 && p[n - 1] == '/')
        n--;
    while (n > 0 && p[n - 1] != '/')
        n--;
    while (n > 1 && p[n - 1] == '/')
        n--;
    p[n] = '\0';
    return n;
}

/* The length of the shortest prefix of dir that does not exist (the first folder that
 * cutune_mkdir_p will make), or more than strlen(dir) when dir exists. */
static size_t first_missing(const char *dir)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s", dir);
    size_t n = strlen(p), missing = n + 1;
    struct stat st;
    while (n > 0 && stat(p, &st) != 0) {
        missing = n;
        n = parent(p, n);
    }
    return missing;
}

/* Remove the folders that the command made for dir, from dir up to the prefix of length
 * `from` (first_missing's), each only while it is empty: a write that failed (a full disk)
 * leaves no empty folder behind. */
static void remove_made(const char *dir, size_t from)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s", dir);
    for (size_t n = strlen(p); n >= from && n > 0 && rmdir(p) == 0;)
        n = parent(p, n);
}

static int is_ident(int c)
{
    return isalnum(c) || c == '_';
}

/* text with every whole-word `from` replaced by `to` (malloc'd). */
static char *rename_word(const char *text, const char *from, const char *to)
{
    size_t nf = strlen(from), nt = strlen(to), count = 0;
    for (const char *p = strstr(text, from); p; p = strstr(p + nf, from))
        count++;
    char *out = malloc(strlen(text) + count * (nt > nf ? nt - nf : 0) + 1), *o = out;
    if (!out)
        return NULL;
    for (const char *p = text; *p;) {
        if (!strncmp(p, from, nf) && (p == text || !is_ident((unsigned char)p[-1])) &&
            !is_ident((unsigned char)p[nf])) {
            memcpy(o, to, nt);
            o += nt;
            p += nf;
        } else {
            *o++ = *p++;
        }
    }
    *o = '\0';
    return out;
}

/* An INI like `from`'s, for the copy: in [variant] the name, version 1, a summary saying
 * where it came from, and no kernel or source (the defaults: the new name). */
static char *copy_ini(const char *ini, const CutuneVariantDef *from, const char *name)
{
    size_t cap = strlen(ini) + 1024, n = 0;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    int in_variant = 0, first = 1;
    for (const char *line = ini; *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line + 1) : strlen(line);
        const char *p = line;
        while (p < line + len && (*p == ' ' || *p == '\t'))
            p++;
        char key[32] = "";
        sscanf(p, "%31[a-z_]", key);
        const char *text = line;
        size_t tlen = len;
        char buf[600];
        if (*p == '[')
            in_variant = !strncmp(p, "[variant]", 9);
        if (first && line[0] == '#') { /* the title comment names the variant */
            snprintf(buf, sizeof buf, "# %s: copied from %s (`cutune new variant`).\n", name,
                     from->name);
            text = buf, tlen = strlen(buf);
        } else if (in_variant && p == line && !strcmp(key, "name")) {
            snprintf(buf, sizeof buf, "name = %s\n", name);
            text = buf, tlen = strlen(buf);
        } else if (in_variant && p == line && !strcmp(key, "version")) {
            snprintf(buf, sizeof buf, "version = 1\n");
            text = buf, tlen = strlen(buf);
        } else if (in_variant && p == line && !strcmp(key, "summary")) {
            snprintf(buf, sizeof buf, "summary = copied from %s: %.400s\n", from->name,
                     from->summary);
            text = buf, tlen = strlen(buf);
        } else if (in_variant && p == line && (!strcmp(key, "kernel") || !strcmp(key, "source"))) {
            tlen = 0;
        }
        first = 0;
        if (n + tlen + 1 > cap) {
            char *g = realloc(out, cap = 2 * cap + tlen);
            if (!g) {
                free(out);
                return NULL;
            }
            out = g;
        }
        memcpy(out + n, text, tlen);
        n += tlen;
        line += len;
    }
    out[n] = '\0';
    return out;
}

/* A default size of the op: the first of its variants', or "" when none has one. */
static void some_size(const CutuneRegistry *reg, const char *op, char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t i = 0; i < reg->nvariants && !buf[0]; i++) {
        const CutuneVariantDef *v = reg->variants[i];
        if (!strcmp(v->op_name, op) && v->space && v->space->nproblems)
            snprintf(buf, len, "%s", v->space->problems[0]);
    }
}

static int template_files(const CutuneRegistry *reg, const CutuneOp *op, const char *name,
                          char **cu, char **ini)
{
    char first_dim[CUTUNE_NAME_MAX] = "", size[128];
    sscanf(op->dim_names, "%63[A-Za-z0-9_]", first_dim);
    some_size(reg, op->name, size, sizeof size);
    const char *cu_fmt =
        "// %s: a variant of op %s. Each parameter of %s.ini arrives as a macro\n"
        "// (-DBLOCK=256); the op passes the arguments below, in this order, and checks what\n"
        "// the kernel writes against its reference (cutune list %s says what it computes).\n"
        "extern \"C\" __global__ void __launch_bounds__(BLOCK)\n"
        "%s(%s)\n"
        "{\n"
        "    // TODO: compute the op's output here. Until then every config is recorded as\n"
        "    // wrong_result: the output is poisoned before each checked launch.\n"
        "}\n";
    const char *ini_fmt =
        "# %s: a variant of op %s (the kernel: %s.cu).\n"
        "[variant]\n"
        "name = %s\n"
        "op = %s\n"
        "version = 1\n"
        "summary = TODO: one line for cutune list\n"
        "; headers = matmul_tiles.cuh  ; device helpers put in front of the kernel, in order\n"
        "\n"
        "[param.BLOCK]\n"
        "pow2 = 64..1024\n"
        "\n"
        "[constraints]\n"
        "threads_fit = BLOCK <= MAX_THREADS_PER_BLOCK\n"
        "\n"
        "[launch]\n"
        "; integer expressions over the parameters, the op's dimensions (%s) and the device\n"
        "; limits; grid and block take 1 to 3 (x, y, z), shared is dynamic shared memory\n"
        "grid = ceil_div(%s, BLOCK)\n"
        "block = BLOCK\n"
        "shared = 0\n"
        "\n"
        "[problems]\n"
        "%sdefault = %s\n";
    size_t n1 = strlen(cu_fmt) + 4 * strlen(name) + strlen(op->signature) + 2 * strlen(op->name);
    size_t n2 = strlen(ini_fmt) + 4 * strlen(name) + 2 * strlen(op->name) +
                2 * strlen(op->dim_names) + strlen(size) + 64;
    *cu = malloc(n1);
    *ini = malloc(n2);
    if (!*cu || !*ini)
        return -1;
    snprintf(*cu, n1, cu_fmt, name, op->name, name, op->name, name, op->signature);
    snprintf(*ini, n2, ini_fmt, name, op->name, name, name, op->name, op->dim_names, first_dim,
             size[0] ? "" : "; a size of the op, as `cutune list` shows it:\n; ",
             size[0] ? size : "...");
    return 0;
}

/* --from a variant that is not on the space path: DIR/<from>.ini, the folder written into
 * (`new variant --dir DIR` writes there, and a copy of a copy is the next step). Loads it
 * into *out (out->name NULL when there is no such file); an exit code when it is there but
 * cannot be read as a variant, with the reason said. A refused file of that name on the
 * path is said too: it is why the variant is missing. */
static int find_in_dir(const CutuneRegistry *reg, const char *dir, const char *from,
                       CutuneVariantDef *out)
{
    const CutuneRegistryNote *refused = cutune_registry_refusal(reg, from);
    if (refused) {
        fprintf(stderr, "cutune new: %s was refused, so there is no variant '%s' to copy: %s\n",
                refused->path, from, refused->text);
        return EXIT_FAILURE_;
    }
    char path[PATH_MAX + 80];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s.ini", dir, from);
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return EXIT_OK;
    CutuneSpace *sp = NULL;
    CutuneError err = {0};
    const char *op = NULL;
    const CutuneOpDef *def = NULL;
    if (cutune_space_peek(path, &sp, &err) == 0 &&
        (op = cutune_space_key(sp, "variant", "op", NULL)))
        def = cutune_registry_op(reg, op);
    int rc = EXIT_OK;
    if (!def) {
        fprintf(stderr, "cutune new: %s cannot be copied: %s\n", path,
                err.msg[0] ? err.msg
                : op       ? "its op is unknown (cutune list)"
                           : "it has no op in [variant] (a C plugin's space)");
        rc = EXIT_FAILURE_;
    } else if (cutune_variant_data_open(path, def, reg->space_dirs, reg->nspace_dirs, out, &err)) {
        fprintf(stderr, "cutune new: %s cannot be copied: %s\n", path, err.msg);
        memset(out, 0, sizeof *out);
        rc = EXIT_FAILURE_;
    }
    cutune_space_free(sp);
    return rc;
}

int cmd_new(int argc, char **argv)
{
    const char *from = NULL, *dir_opt = NULL;
    const CliOption opts[] = {CLI_TEXT("from", &from), CLI_TEXT("dir", &dir_opt), CLI_END};
    int parsed = cli_parse_options("new", help, argc, argv, opts);
    if (parsed >= 0)
        return parsed;
    if (argc - optind != 3 || strcmp(argv[optind], "variant"))
        return cli_usage_error("new", "write `cutune new variant <op> <name>`");
    const char *opname = argv[optind + 1], *name = argv[optind + 2];
    /* the name is the kernel's too: NVRTC must take it as a function's name */
    if (!cutune_is_identifier(name) || strlen(name) >= CUTUNE_NAME_MAX)
        return cli_usage_error("new",
                               "'%s' cannot name a variant: its kernel is named after it, so it "
                               "must be a C identifier (letters, digits and '_', not a digit "
                               "first, not a keyword such as int), of at most %d characters",
                               name, CUTUNE_NAME_MAX - 1);
    char dir[PATH_MAX];
    if (dir_opt)
        snprintf(dir, sizeof dir, "%s", dir_opt);
    else if (user_dir(dir, sizeof dir) != 0)
        return cli_usage_error("new", "neither XDG_DATA_HOME nor HOME is set: pass --dir");
    for (size_t n = strlen(dir); n > 1 && dir[n - 1] == '/';) /* "DIR/" writes DIR/x.ini */
        dir[--n] = '\0';

    CutuneRegistry reg;
    CutuneError err = {0};
    if (cutune_registry_load(&reg, &err))
        return cli_fail("new", &err);
    int rc = EXIT_FAILURE_;
    char *cu = NULL, *ini = NULL, *text = NULL;
    const CutuneOpDef *op = cutune_registry_op(&reg, opname);
    const CutuneVariantDef *same = cutune_registry_find(&reg, name), *src = NULL;
    CutuneVariantDef outside; /* --from a variant in --dir, off the space path */
    memset(&outside, 0, sizeof outside);
    if (!op) {
        char ops[512];
        cutune_registry_op_names(&reg, ops, sizeof ops);
        fprintf(stderr, "cutune new: no op '%s'; the ops are %s\n", opname, ops);
        rc = EXIT_NOT_FOUND;
        goto out;
    }
    if (same) {
        fprintf(stderr, "cutune new: a variant '%s' exists already (%s); choose another name\n",
                name, same->path);
        goto out;
    }
    if (from) {
        src = cutune_registry_find(&reg, from);
        char path[PATH_MAX];
        if (!src && (rc = find_in_dir(&reg, dir, from, &outside)) != EXIT_OK)
            goto out;
        rc = EXIT_FAILURE_;
        if (!src && outside.name)
            src = &outside;
        if (!src) {
            char dirs[2048] = "";
            for (size_t i = 0; i < reg.nspace_dirs; i++) {
                strncat(dirs, i ? ", " : "", sizeof dirs - strlen(dirs) - 1);
                strncat(dirs, reg.space_dirs[i], sizeof dirs - strlen(dirs) - 1);
            }
            fprintf(stderr,
                    "cutune new: no variant '%s' to copy: there is no %s.ini on the space path "
                    "(%s)%s%s; `cutune list %s` shows the variants, and CUTUNE_SPACE_PATH adds "
                    "a folder to the path\n",
                    from, from, *dirs ? dirs : "no folder", dir_opt ? " nor in " : "",
                    dir_opt ? dir : "", opname);
            rc = EXIT_NOT_FOUND;
            goto out;
        }
        if (strcmp(src->op_name, opname)) {
            fprintf(stderr, "cutune new: %s is a variant of op %s, not of %s\n", from, src->op_name,
                    opname);
            goto out;
        }
        if (src->v || cutune_variant_source_path(src, reg.space_dirs, reg.nspace_dirs, path,
                                                 sizeof path) != 0) {
            fprintf(stderr,
                    "cutune new: %s is %s; --from copies a variant written as data (an "
                    "INI and a kernel file)\n",
                    from, src->v ? "a C plugin" : "without its kernel file");
            goto out;
        }
        if (!(text = read_file(path)) || !(cu = rename_word(text, src->kernel_name, name))) {
            fprintf(stderr, "cutune new: cannot read %s\n", path);
            goto out;
        }
        free(text);
        if (!(text = read_file(src->path)) || !(ini = copy_ini(text, src, name))) {
            fprintf(stderr, "cutune new: cannot read %s\n", src->path);
            goto out;
        }
    } else if (template_files(&reg, op->op, name, &cu, &ini) != 0) {
        fprintf(stderr, "cutune new: out of memory\n");
        goto out;
    }
    size_t made_from = first_missing(dir);
    if (cutune_mkdir_p(dir, &err) != 0) {
        fprintf(stderr, "cutune new: %s\n", err.msg);
        remove_made(dir, made_from); /* a parent made before a deeper mkdir failed */
        goto out;
    }
    char cu_path[PATH_MAX + 80], ini_path[PATH_MAX + 80];
    snprintf(cu_path, sizeof cu_path, "%s/%s.cu", dir, name);
    snprintf(ini_path, sizeof ini_path, "%s/%s.ini", dir, name);
    if (write_new(ini_path, ini) != 0) {
        remove_made(dir, made_from);
        goto out;
    }
    if (write_new(cu_path, cu) != 0) {
        unlink(ini_path);
        remove_made(dir, made_from);
        goto out;
    }
    printf("wrote %s and %s%s%s\n", ini_path, cu_path, src ? ", copied from " : "",
           src ? src->name : "");
    char real[PATH_MAX];
    int on_path = 0;
    for (size_t i = 0; realpath(dir, real) && i < reg.nspace_dirs; i++)
        on_path |= !strcmp(reg.space_dirs[i], real);
    if (!on_path)
        printf("note: %s is not on the space path: export CUTUNE_SPACE_PATH=%s (or leave out "
               "--dir)\n",
               dir, dir);
    printf("next: edit them, then\n"
           "  cutune check %s\n"
           "  cutune run %s --variant %s --device 0\n"
           "  cutune query %s --size SIZE --device 0\n",
           name, opname, name, opname);
    rc = EXIT_OK;
out:
    if (outside.name)
        cutune_variant_close(&outside);
    free(text);
    free(cu);
    free(ini);
    cutune_registry_free(&reg);
    return rc;
}
