/* Kernels compiled for the CPU emulation and launched (emu.h). */
#include "emu.h"
#include "space.h"
#include "space_limits.h"
#include "util.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern const char cutune_kemu_hpp[]; /* kemu.hpp, embedded at build time */

#define CXX_ARGS_MAX (CUTUNE_MAX_PARAMS + 32)

/* The C++ compiler: $CXX (words split at spaces, e.g. "ccache g++"), else c++. */
static size_t compiler(char *buf, size_t len, char **argv, size_t max)
{
    const char *cxx = getenv("CXX");
    snprintf(buf, len, "%s", cxx && *cxx ? cxx : "c++");
    size_t n = 0;
    for (char *save = NULL, *w = strtok_r(buf, " ", &save); w && n < max;
         w = strtok_r(NULL, " ", &save))
        argv[n++] = w;
    return n;
}

static int write_text(const char *path, const char *a, const char *b)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    int bad = fputs(a, f) < 0 || (b && fputs(b, f) < 0);
    return fclose(f) != 0 || bad ? -1 : 0;
}

/* `extern __shared__ T name[];` (dynamic shared memory, which a CPU has no launch setting
 * for) becomes `T *name = reinterpret_cast<decltype(name)>(kemu::dynamic_shared);`. A
 * declaration on a preprocessor line is left alone (kemu.hpp defines the DYNAMIC_SHARED
 * macro that shipped kernels use in its place). malloc'd. */
static char *dynamic_shared(const char *src)
{
    static const char key[] = "extern __shared__";
    size_t count = 0;
    for (const char *p = strstr(src, key); p; p = strstr(p + 1, key))
        count++;
    char *out = malloc(strlen(src) + count * 160 + 1), *o = out; /* a name: at most 64 */
    if (!out)
        return NULL;
    const char *p = src;
    for (const char *k = strstr(p, key); k; k = strstr(p, key)) {
        const char *line = k, *semi = strchr(k, ';');
        while (line > src && line[-1] != '\n')
            line--;
        while (*line == ' ' || *line == '\t')
            line++;
        const char *close = semi;
        while (close && close > k && (close[-1] == ' ' || close[-1] == '\t'))
            close--;
        const char *open = close && close - 2 >= k && close[-1] == ']' ? close - 2 : NULL;
        const char *name_end = open && *open == '[' ? open : NULL;
        const char *name = name_end;
        while (name && name > k &&
               (name[-1] == '_' || (name[-1] >= 'a' && name[-1] <= 'z') ||
                (name[-1] >= 'A' && name[-1] <= 'Z') || (name[-1] >= '0' && name[-1] <= '9')))
            name--;
        if (*line == '#' || !name || name == name_end || name_end - name > 64) {
            /* not a declaration it can read: left for the compiler to refuse */
            size_t n = (size_t)(k - p) + sizeof key - 1;
            memcpy(o, p, n);
            o += n;
            p = k + sizeof key - 1;
            continue;
        }
        memcpy(o, p, (size_t)(k - p));
        o += k - p;
        int nl = (int)(name_end - name);
        o += sprintf(o, "%.*s*%.*s = reinterpret_cast<decltype(%.*s)>(kemu::dynamic_shared)",
                     (int)(name - k - (sizeof key - 1)), k + sizeof key - 1, nl, name, nl, name);
        p = semi;
    }
    strcpy(o, p);
    return out;
}

static const char main_cpp[] =
    "#include \"kemu.hpp\"\n"
    "#include \"kernel.cu\"\n"
    "#include <type_traits>\n"
    "#include <utility>\n"
    "namespace {\n"
    "template <class... A, std::size_t... I>\n"
    "void cutune_emu_call(void (*k)(A...), dim3 g, dim3 b, void **args, "
    "std::index_sequence<I...>)\n"
    "{\n"
    "    kemu::launch(g, b, k, *static_cast<std::remove_cv_t<A> *>(args[I])...);\n"
    "}\n"
    "template <class... A> constexpr int cutune_emu_arity(void (*)(A...))\n"
    "{\n"
    "    return (int)sizeof...(A);\n"
    "}\n"
    "template <class... A> void cutune_emu_run(void (*k)(A...), dim3 g, dim3 b, void **args)\n"
    "{\n"
    "    cutune_emu_call(k, g, b, args, std::index_sequence_for<A...>{});\n"
    "}\n"
    "} // namespace\n"
    "extern \"C\" __attribute__((visibility(\"default\"))) int cutune_emu_nparams = "
    "cutune_emu_arity(&CUTUNE_EMU_KERNEL);\n"
    "extern \"C\" __attribute__((visibility(\"default\"))) int\n"
    "cutune_emu_launch(const unsigned *grid, const unsigned *block, unsigned long long shared,\n"
    "                  void **args, int nargs)\n"
    "{\n"
    "    if (nargs != cutune_emu_nparams)\n"
    "        return 1;\n"
    "    if (shared > sizeof kemu::dynamic_shared)\n"
    "        return 2;\n"
    "    if ((unsigned long long)block[0] * block[1] * block[2] > kemu::MAX_THREADS)\n"
    "        return 3;\n"
    "    cutune_emu_run(&CUTUNE_EMU_KERNEL, dim3{grid[0], grid[1], grid[2]},\n"
    "                   dim3{block[0], block[1], block[2]}, args);\n"
    "    return 0;\n"
    "}\n";

/* Run the compiler in dir, its messages into dir/log; 0 when it made `out`. */
static int run_compiler(const char *dir, const char *kernel_name, const char *const *defines,
                        size_t ndefines, const char *out, CutuneError *err)
{
    char words[512], kdef[CUTUNE_NAME_MAX + 32], log[PATH_MAX + 128];
    char *argv[CXX_ARGS_MAX + 1];
    char *defs[CUTUNE_MAX_PARAMS];
    size_t n = compiler(words, sizeof words, argv, 4), ndefs = 0;
    snprintf(kdef, sizeof kdef, "-DCUTUNE_EMU_KERNEL=%s", kernel_name);
    static char *const fixed[] = {"-std=c++20", "-O1", "-fPIC", "-shared", "-w", "-I."};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        argv[n++] = fixed[i];
    argv[n++] = kdef;
    for (size_t i = 0; i < ndefines && i < CUTUNE_MAX_PARAMS && n < CXX_ARGS_MAX - 4; i++) {
        size_t len = strlen(defines[i]) + 3;
        if (!(defs[ndefs] = malloc(len)))
            break;
        snprintf(defs[ndefs], len, "-D%s", defines[i]);
        argv[n++] = defs[ndefs++];
    }
    argv[n++] = "main.cpp";
    argv[n++] = "-o";
    argv[n++] = (char *)out;
    argv[n] = NULL;
    snprintf(log, sizeof log, "%s/log", dir);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, STDOUT_FILENO);
            dup2(fd, STDERR_FILENO);
        }
        if (chdir(dir) == 0)
            execvp(argv[0], argv);
        _exit(127);
    }
    int status = 0, rc = 0;
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    for (size_t i = 0; i < ndefs; i++)
        free(defs[i]);
    if (pid < 0)
        return cutune_error(err, CUTUNE_ERR_IO, "cannot start the C++ compiler: %s",
                            strerror(errno));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    /* the compiler's error lines (the first few), or the start of its log */
    char text[900] = "", line[400];
    FILE *f = fopen(log, "r");
    for (int shown = 0; f && shown < 6 && fgets(line, sizeof line, f);)
        if (strstr(line, "error")) {
            strncat(text, "      ", sizeof text - strlen(text) - 1);
            strncat(text, line, sizeof text - strlen(text) - 1);
            shown++;
        }
    if (f && !text[0] && fseek(f, 0, SEEK_SET) == 0)
        text[fread(text, 1, sizeof text - 1, f)] = '\0';
    if (f)
        fclose(f);
    size_t tl = strlen(text);
    while (tl > 0 && text[tl - 1] == '\n')
        text[--tl] = '\0';
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        rc = cutune_error(err, CUTUNE_ERR_NOT_FOUND,
                          "the CPU emulation needs a C++20 compiler, and '%s' cannot be run: "
                          "install g++ or clang++, or set CXX to one",
                          argv[0]);
    else
        rc = cutune_error(err, CUTUNE_ERR_COMPILE,
                          "%s cannot be compiled for the CPU emulation (kemu.hpp: no inline PTX, "
                          "textures, half precision or cooperative groups; kernel.cu is the "
                          "kernel with its headers in front):\n%s",
                          kernel_name, text);
    return rc;
}

int cutune_emu_build(const char *source, const char *kernel_name, const char *const *defines,
                     size_t ndefines, const char *cache_dir, char *path, size_t len,
                     CutuneError *err)
{
    char cache[PATH_MAX], dir[PATH_MAX + 64], words[512], *argv[4], key[33];
    if (!cache_dir) {
        int rc = cutune_cache_dir(cache, sizeof cache, err);
        if (rc)
            return rc;
        cache_dir = cache;
    }
    CutuneHash h;
    cutune_hash_init(&h);
    const char *const parts[] = {"cutune-emu-1", cutune_kemu_hpp, main_cpp, source, kernel_name};
    cutune_hash_strs(&h, parts, sizeof parts / sizeof *parts);
    cutune_hash_strs(&h, defines, ndefines);
    size_t nw = compiler(words, sizeof words, argv, 4);
    cutune_hash_strs(&h, (const char *const *)argv, nw);
    cutune_hash_hex(&h, key);
    snprintf(dir, sizeof dir, "%s/emu", cache_dir);
    int rc = cutune_mkdir_p(dir, err);
    if (rc)
        return rc;
    if ((size_t)snprintf(path, len, "%s/%s.so", dir, key) >= len)
        return cutune_error(err, CUTUNE_ERR_RANGE, "the path of %s/%s.so is too long", dir, key);
    if (access(path, R_OK) == 0)
        return 0;
    /* a folder of its own for the sources, then the object renamed into place, so that two
     * builds of one kernel at once never see half a file */
    char work[PATH_MAX + 96], out[PATH_MAX + 128], file[PATH_MAX + 128];
    snprintf(work, sizeof work, "%s/build-XXXXXX", dir);
    if (!mkdtemp(work))
        return cutune_error(err, CUTUNE_ERR_IO, "cannot make a folder in %s: %s", dir,
                            strerror(errno));
    char *kernel = dynamic_shared(source);
    snprintf(out, sizeof out, "%s/kernel.so", work);
    const char *names[] = {"kemu.hpp", "kernel.cu", "main.cpp"};
    const char *texts[] = {cutune_kemu_hpp, kernel, main_cpp};
    for (size_t i = 0; i < 3 && rc == 0; i++) {
        snprintf(file, sizeof file, "%s/%s", work, names[i]);
        if (!texts[i])
            rc = cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
        else if (write_text(file, texts[i], i == 1 ? "\n" : NULL) != 0)
            rc = cutune_error(err, CUTUNE_ERR_IO, "cannot write %s: %s", file, strerror(errno));
    }
    free(kernel);
    if (rc == 0)
        rc = run_compiler(work, kernel_name, defines, ndefines, out, err);
    if (rc == 0 && rename(out, path) != 0)
        rc = cutune_error(err, CUTUNE_ERR_IO, "cannot move %s to %s: %s", out, path,
                          strerror(errno));
    const char *left[] = {"kemu.hpp", "kernel.cu", "main.cpp", "kernel.so", "log"};
    for (size_t i = 0; i < sizeof left / sizeof left[0]; i++) {
        snprintf(file, sizeof file, "%s/%s", work, left[i]);
        unlink(file);
    }
    rmdir(work);
    return rc;
}

int cutune_emu_open(const char *path, CutuneEmuKernel *k, CutuneError *err)
{
    memset(k, 0, sizeof *k);
    if (!(k->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
        return cutune_error(err, CUTUNE_ERR_PLUGIN, "%s: cannot load: %s", path, dlerror());
    void *launch = dlsym(k->handle, "cutune_emu_launch");
    const int *nparams = dlsym(k->handle, "cutune_emu_nparams");
    if (!launch || !nparams) {
        dlclose(k->handle);
        k->handle = NULL;
        return cutune_error(err, CUTUNE_ERR_PLUGIN, "%s: not an emulated kernel", path);
    }
    memcpy(&k->launch, &launch, sizeof launch);
    k->nparams = *nparams;
    return 0;
}

int cutune_emu_launch(const CutuneEmuKernel *k, const CutuneLaunch *l, void **args, int nargs,
                      CutuneError *err)
{
    int rc = k->launch(l->grid, l->block, l->shared_bytes, args, nargs);
    if (rc == 1)
        return cutune_error(err, CUTUNE_ERR_INVALID,
                            "the kernel takes %d parameters, but %d "
                            "arguments were given",
                            k->nparams, nargs);
    if (rc == 2)
        return cutune_error(err, CUTUNE_ERR_RESOURCES,
                            "%zu bytes of dynamic shared memory: more than the emulation's 256 "
                            "KiB",
                            l->shared_bytes);
    if (rc == 3)
        return cutune_error(err, CUTUNE_ERR_RESOURCES, "a block of %ux%ux%u threads: over 1024",
                            l->block[0], l->block[1], l->block[2]);
    return 0;
}

void cutune_emu_close(CutuneEmuKernel *k)
{
    if (k->handle)
        dlclose(k->handle);
    memset(k, 0, sizeof *k);
}
