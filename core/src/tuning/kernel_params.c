/* The types of a kernel's parameters against its op's signature (kernel_params.h).
 *
 * Why a probe compiled with NVRTC, and not the PTX of the kernel alone or a parse of the
 * source: the PTX of an entry lists each parameter's size (.param .u32, .u64, .f32, .b8[N])
 * but not what it is: a pointer and a `long long` are both .u64, an `int` and an `unsigned`
 * both .u32, and a `double *` is a `float *`. Parsing the source would have to follow the
 * preprocessor (the config's -D macros, the headers put in front), typedefs (int64_t) and
 * templates. So the compiler is asked: the kernel's source is compiled with a probe after
 * it that takes the kernel's function type (decltype(&kernel)), and writes, for each
 * parameter, a code of its type (kind, size, signedness, alignment, and those of the
 * pointee for a pointer) into a __device__ variable, which the PTX shows as a number. The
 * op's signature is compiled the same way on its own (so that no macro of the variant can
 * touch its parameter names). Types that the ABI passes alike compare equal: `long` and
 * `long long` (both 8-byte signed integers), `float *` and `const float *`. */
#include "kernel_params.h"
#include "compile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The code of a type: bits 0-2 its kind (1 integer, 2 floating point, 3 bool, 4 pointer,
 * 5 struct, union or other, 6 void), bit 3 signed (integers), bits 4-19 its size, bits
 * 20-28 its alignment; for a pointer, bits 32-60 the same of the pointee. */
enum { KIND_INT = 1, KIND_FLOAT, KIND_BOOL, KIND_POINTER, KIND_OTHER, KIND_VOID };
#define KIND(c) ((unsigned)((c)&7))
#define IS_SIGNED(c) ((unsigned)((c) >> 3 & 1))
#define SIZE(c) ((unsigned)((c) >> 4 & 0xffff))
#define ALIGN(c) ((unsigned)((c) >> 20 & 0x1ff))
#define POINTEE(c) ((c) >> 32)
#define HALF(c) ((c)&0x1fffffff) /* a pointer's own code, without its pointee's */

static const char probe_prelude[] =
    "namespace cutune_probe {\n"
    "template <class A, class B> struct same { static constexpr bool v = false; };\n"
    "template <class A> struct same<A, A> { static constexpr bool v = true; };\n"
    "template <class T> struct rm_cv { typedef T type; };\n"
    "template <class T> struct rm_cv<const T> { typedef T type; };\n"
    "template <class T> struct rm_cv<volatile T> { typedef T type; };\n"
    "template <class T> struct rm_cv<const volatile T> { typedef T type; };\n"
    "template <class T> struct is_ptr { static constexpr bool v = false; };\n"
    "template <class T> struct is_ptr<T *> { static constexpr bool v = true; };\n"
    "template <class T> struct is_int { static constexpr bool v = __is_enum(T); };\n"
    "#define CUTUNE_PROBE_INT(T) \\\n"
    "    template <> struct is_int<T> { static constexpr bool v = true; };\n"
    "CUTUNE_PROBE_INT(char) CUTUNE_PROBE_INT(signed char) CUTUNE_PROBE_INT(unsigned char)\n"
    "CUTUNE_PROBE_INT(short) CUTUNE_PROBE_INT(unsigned short) CUTUNE_PROBE_INT(int)\n"
    "CUTUNE_PROBE_INT(unsigned) CUTUNE_PROBE_INT(long) CUTUNE_PROBE_INT(unsigned long)\n"
    "CUTUNE_PROBE_INT(long long) CUTUNE_PROBE_INT(unsigned long long)\n"
    "CUTUNE_PROBE_INT(wchar_t) CUTUNE_PROBE_INT(char16_t) CUTUNE_PROBE_INT(char32_t)\n"
    "template <class T> struct is_float { static constexpr bool v = false; };\n"
    "template <> struct is_float<float> { static constexpr bool v = true; };\n"
    "template <> struct is_float<double> { static constexpr bool v = true; };\n"
    "template <> struct is_float<long double> { static constexpr bool v = true; };\n"
    "template <class T> constexpr unsigned long long size_of()\n"
    "{ if constexpr (same<T, void>::v) return 0; else return sizeof(T); }\n"
    "template <class T> constexpr unsigned long long align_of()\n"
    "{ if constexpr (same<T, void>::v) return 0; else return alignof(T); }\n"
    "template <class T> constexpr unsigned long long signed_int()\n"
    "{ if constexpr (!is_int<T>::v || __is_enum(T)) return 0; else return T(-1) < T(0); }\n"
    "template <class T> constexpr unsigned long long scalar()\n"
    "{\n"
    "    typedef typename rm_cv<T>::type U;\n"
    "    unsigned long long kind = same<U, bool>::v ? 3 : is_int<U>::v ? 1 : is_float<U>::v ? 2\n"
    "        : is_ptr<U>::v ? 4 : same<U, void>::v ? 6 : 5;\n"
    "    return kind | signed_int<U>() << 3 | size_of<U>() << 4 | align_of<U>() << 20;\n"
    "}\n"
    "template <class T> struct code { static constexpr unsigned long long v() { return "
    "scalar<T>(); } };\n"
    "template <class T> struct code<T *> { static constexpr unsigned long long v()\n"
    "{ return scalar<T *>() | scalar<T>() << 32; } };\n"
    "template <class F> struct sig;\n"
    "template <class... A> struct sig<void (*)(A...)> {\n"
    "    static constexpr int n() { return sizeof...(A); }\n"
    "    template <int I> static constexpr unsigned long long at()\n"
    "    {\n"
    "        constexpr unsigned long long c[] = {code<A>::v()..., 0};\n"
    "        return c[I < (int)sizeof...(A) ? I : (int)sizeof...(A)];\n"
    "    }\n"
    "};\n"
    "} // namespace cutune_probe\n";

/* The probe of function `fn` after `before`: cutune_probe_n and cutune_probe_<i>, for the
 * first CUTUNE_PARAMS_MAX parameters. malloc'd. */
static char *probe_source(const char *before, const char *fn)
{
    size_t cap = strlen(before) + sizeof probe_prelude + 256 + CUTUNE_PARAMS_MAX * 128;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    size_t n = (size_t)snprintf(s, cap,
                                "%s\n%s"
                                "#define CUTUNE_PROBE_SIG cutune_probe::sig<decltype(&%s)>\n"
                                "extern \"C\" __device__ int cutune_probe_n = "
                                "CUTUNE_PROBE_SIG::n();\n",
                                before, probe_prelude, fn);
    for (int i = 0; i < CUTUNE_PARAMS_MAX && n < cap; i++)
        n += (size_t)snprintf(s + n, cap - n,
                              "extern \"C\" __device__ unsigned long long cutune_probe_%d = "
                              "CUTUNE_PROBE_SIG::at<%d>();\n",
                              i, i);
    return s;
}

/* Read cutune_probe_n and cutune_probe_<i> back from the PTX ("... .u64 cutune_probe_3 =
 * 283467841668;"). */
static int read_probe(const char *ptx, CutuneParamTypes *out)
{
    memset(out, 0, sizeof *out);
    out->n = -1;
    for (const char *p = strstr(ptx, "cutune_probe_"); p; p = strstr(p + 1, "cutune_probe_")) {
        const char *name = p + strlen("cutune_probe_");
        int i = 0;
        unsigned long long v = 0;
        if (sscanf(name, "n = %d;", &out->n) == 1)
            continue;
        if (sscanf(name, "%d = %llu;", &i, &v) == 2 && i >= 0 && i < CUTUNE_PARAMS_MAX)
            out->code[i] = v;
    }
    if (out->n < 0)
        return -1;
    if (out->n > CUTUNE_PARAMS_MAX)
        out->n = CUTUNE_PARAMS_MAX;
    return 0;
}

static int probe(const char *source, const char *program, const char *fn,
                 const char *const *defines, size_t ndefines, int arch, CutuneParamTypes *out,
                 CutuneError *err)
{
    char *text = probe_source(source, fn), *ptx = NULL;
    if (!text)
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    int rc = cutune_nvrtc_ptx(text, program, defines, ndefines, arch, &ptx, err);
    if (rc == 0 && read_probe(ptx, out) != 0)
        rc = cutune_error(err, CUTUNE_ERR_COMPILE,
                          "the PTX of %s has no parameter types (cutune_probe_n)", program);
    free(text);
    free(ptx);
    return rc;
}

int cutune_kernel_param_types(const char *source, const char *kernel_name,
                              const char *const *defines, size_t ndefines, int arch,
                              CutuneParamTypes *out, CutuneError *err)
{
    return probe(source, kernel_name, kernel_name, defines, ndefines, arch, out, err);
}

int cutune_signature_param_types(const char *signature, int arch, CutuneParamTypes *out,
                                 CutuneError *err)
{
    size_t len = strlen(signature) + 96;
    char *decl = malloc(len);
    if (!decl)
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    snprintf(decl, len, "extern \"C\" __global__ void cutune_op_signature(%s);", signature);
    int rc = probe(decl, "op signature", "cutune_op_signature", NULL, 0, arch, out, err);
    free(decl);
    return rc;
}

/* A type's name as C writes it, from its code (one half of it). */
static void type_name(uint64_t c, char *buf, size_t len)
{
    static const char *const ints[2][9] = {{"", "unsigned char", "unsigned short", "",
                                            "unsigned int", "", "", "", "unsigned long long"},
                                           {"", "signed char", "short", "", "int", "", "", "",
                                            "long long"}};
    unsigned size = SIZE(c);
    switch (KIND(c)) {
    case KIND_INT:
        if (size <= 8 && *ints[IS_SIGNED(c)][size])
            snprintf(buf, len, "%s", ints[IS_SIGNED(c)][size]);
        else
            snprintf(buf, len, "a %u-byte %s integer", size, IS_SIGNED(c) ? "signed" : "unsigned");
        return;
    case KIND_FLOAT:
        snprintf(buf, len, "%s", size == 4 ? "float" : size == 8 ? "double" : "long double");
        return;
    case KIND_BOOL: snprintf(buf, len, "bool"); return;
    case KIND_POINTER: snprintf(buf, len, "a pointer"); return;
    case KIND_VOID: snprintf(buf, len, "void"); return;
    default: snprintf(buf, len, "a %u-byte struct (aligned to %u)", size, ALIGN(c)); return;
    }
}

static void describe(uint64_t c, char *buf, size_t len)
{
    if (KIND(c) != KIND_POINTER) {
        type_name(HALF(c), buf, len);
        return;
    }
    char to[64];
    type_name(POINTEE(c), to, sizeof to);
    if (KIND(POINTEE(c)) == KIND_POINTER || KIND(POINTEE(c)) == KIND_OTHER)
        snprintf(buf, len, "a pointer to %s", to);
    else
        snprintf(buf, len, "%s *", to);
}

/* The i-th declaration of a signature ("int K"), trimmed, into buf. */
static void declaration(const char *signature, int i, char *buf, size_t len)
{
    const char *p = signature;
    int depth = 0;
    for (int k = 0; k < i && *p; p++) {
        depth += (*p == '(' || *p == '[' || *p == '<') - (*p == ')' || *p == ']' || *p == '>');
        k += *p == ',' && depth == 0;
    }
    while (*p == ' ')
        p++;
    const char *e = p;
    for (depth = 0; *e && !(*e == ',' && depth == 0); e++)
        depth += (*e == '(' || *e == '[' || *e == '<') - (*e == ')' || *e == ']' || *e == '>');
    while (e > p && e[-1] == ' ')
        e--;
    snprintf(buf, len, "%.*s", (int)(e - p), p);
}

int cutune_param_mismatch(const CutuneParamTypes *kernel, const CutuneParamTypes *op,
                          const char *signature, char *why, size_t len)
{
    int n = kernel->n < op->n ? kernel->n : op->n;
    for (int i = 0; i < n; i++) {
        uint64_t k = kernel->code[i], o = op->code[i];
        if (k == o) /* the codes leave const and volatile out */
            continue;
        char kt[96], ot[96], decl[160];
        describe(k, kt, sizeof kt);
        describe(o, ot, sizeof ot);
        declaration(signature, i, decl, sizeof decl);
        snprintf(why, len,
                 "parameter %d is %s (%u bytes), but the op passes `%s` (%s, %u bytes) "
                 "there: declare it as the op's signature does",
                 i + 1, kt, SIZE(k), decl, ot, SIZE(o));
        return i;
    }
    return -1;
}

int cutune_param_not_tensor_map(const CutuneParamTypes *kernel, int first, int n, char *why,
                                size_t len)
{
    for (int i = first; i < first + n && i < kernel->n; i++) {
        uint64_t k = kernel->code[i];
        if (KIND(k) == KIND_OTHER && SIZE(k) == 128 && ALIGN(k) >= 64)
            continue;               /* TMA reads a map at a 64-byte aligned address */
        char kt[96], size[32] = ""; /* a struct's description has its size */
        describe(k, kt, sizeof kt);
        if (KIND(k) != KIND_OTHER)
            snprintf(size, sizeof size, " (%u bytes)", SIZE(k));
        snprintf(why, len,
                 "parameter %d is %s%s, but TMA tensor map %d of the variant goes there: declare "
                 "it a `const __grid_constant__` struct of 128 bytes aligned to 64, e.g. struct "
                 "alignas(64) TensorMap { unsigned long long opaque[16]; }",
                 i + 1, kt, size, i - first + 1);
        return i;
    }
    return -1;
}
