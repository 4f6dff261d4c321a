/* Names: of ops and variants (cutune_is_name), and of kernels, which must be C++
 * identifiers that NVRTC compiles (cutune_is_identifier). */
#include "names.h"

#include <string.h>

int cutune_is_name(const char *s)
{
    if (!s || !*s)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_'))
            return 0;
    return 1;
}

/* The keywords of C++20 (and C's), which NVRTC refuses as a function's name. */
static const char *const keywords[] = {"alignas",
                                       "alignof",
                                       "and",
                                       "and_eq",
                                       "asm",
                                       "auto",
                                       "bitand",
                                       "bitor",
                                       "bool",
                                       "break",
                                       "case",
                                       "catch",
                                       "char",
                                       "char8_t",
                                       "char16_t",
                                       "char32_t",
                                       "class",
                                       "compl",
                                       "concept",
                                       "const",
                                       "consteval",
                                       "constexpr",
                                       "constinit",
                                       "const_cast",
                                       "continue",
                                       "co_await",
                                       "co_return",
                                       "co_yield",
                                       "decltype",
                                       "default",
                                       "delete",
                                       "do",
                                       "double",
                                       "dynamic_cast",
                                       "else",
                                       "enum",
                                       "explicit",
                                       "export",
                                       "extern",
                                       "false",
                                       "float",
                                       "for",
                                       "friend",
                                       "goto",
                                       "if",
                                       "inline",
                                       "int",
                                       "long",
                                       "mutable",
                                       "namespace",
                                       "new",
                                       "noexcept",
                                       "not",
                                       "not_eq",
                                       "nullptr",
                                       "operator",
                                       "or",
                                       "or_eq",
                                       "private",
                                       "protected",
                                       "public",
                                       "register",
                                       "reinterpret_cast",
                                       "requires",
                                       "restrict",
                                       "return",
                                       "short",
                                       "signed",
                                       "sizeof",
                                       "static",
                                       "static_assert",
                                       "static_cast",
                                       "struct",
                                       "switch",
                                       "template",
                                       "this",
                                       "thread_local",
                                       "throw",
                                       "true",
                                       "try",
                                       "typedef",
                                       "typeid",
                                       "typename",
                                       "union",
                                       "unsigned",
                                       "using",
                                       "virtual",
                                       "void",
                                       "volatile",
                                       "wchar_t",
                                       "while",
                                       "xor",
                                       "xor_eq"};

int cutune_is_identifier(const char *s)
{
    if (!cutune_is_name(s) || (*s >= '0' && *s <= '9'))
        return 0;
    for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
        if (!strcmp(s, keywords[i]))
            return 0;
    return 1;
}
