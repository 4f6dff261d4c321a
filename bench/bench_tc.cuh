// What bench_mma.cu and bench_tf32.cu share before they run anything: the options both
// take, problem sizes ("MxNxK" lists), the files they read (kernels, headers, --configs), and
// the NVRTC compile and ptxas's report. bench_tc_run.cuh has what they share on the device.
#ifndef CUTUNE_BENCH_TC_CUH
#define CUTUNE_BENCH_TC_CUH

#include <nvrtc.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

struct Size {
    int M, N, K;
};

// ---- the options both take -----------------------------------------------------------------

// Each program sets its own defaults (kernel, check sizes, layout, architectures) before
// tc_parse reads argv.
struct TcOptions {
    const char *kernel_path = nullptr, *archs = nullptr, *check_list = nullptr;
    const char *time_list = "4096x4096x4096,8192x8192x8192";
    int reps = 20, device = 0;
    uint64_t seed = 0; // 0 until given: the time, after tc_parse
    bool nt = true, compile_mode = false, no_spills = false;
};

// Reads argument a into o when it is one of TcOptions' (its value through need()): true;
// false, with nothing read, otherwise. A bad value exits with usage(why).
template <class Need>
static bool tc_option(const char *a, Need need, int (*usage)(const char *), TcOptions *o)
{
    if (!strcmp(a, "--layout")) {
        const char *l = need();
        if (strcmp(l, "nt") && strcmp(l, "nn"))
            exit(usage("--layout is nt or nn"));
        o->nt = !strcmp(l, "nt");
    } else if (!strcmp(a, "--check-sizes")) {
        o->check_list = need();
    } else if (!strcmp(a, "--time-sizes")) {
        o->time_list = need();
    } else if (!strcmp(a, "--reps")) {
        o->reps = atoi(need());
        if (o->reps < 1)
            exit(usage("--reps is 1 or more"));
    } else if (!strcmp(a, "--seed")) {
        o->seed = strtoull(need(), NULL, 10);
    } else if (!strcmp(a, "--kernel")) {
        o->kernel_path = need();
    } else if (!strcmp(a, "--device")) {
        o->device = atoi(need());
    } else if (!strcmp(a, "--compile-only")) {
        o->compile_mode = true;
    } else if (!strcmp(a, "--no-spills")) {
        o->no_spills = true;
    } else if (!strcmp(a, "--arch")) {
        o->archs = need();
    } else {
        return false;
    }
    return true;
}

// Reads argv: TcOptions' own into o, any other through own(a, need), which returns false for
// one it does not know either (then bad usage: exit 2); need() gives an option's value, or
// exits with usage when there is none. --help (-h) prints usage(what) and exits 0.
template <class Own>
static void tc_parse(int argc, char **argv, int (*usage)(const char *), const char *what,
                     TcOptions *o, Own own)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : nullptr;
        auto need = [&]() {
            if (!v)
                exit(usage((std::string(a) + " needs a value").c_str()));
            i++;
            return v;
        };
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(what);
            exit(0);
        }
        if (!tc_option(a, need, usage, o) && !own(a, need))
            exit(usage((std::string("unknown argument ") + a).c_str()));
    }
    if (!o->seed)
        o->seed = (uint64_t)time(NULL);
}

// The items of a comma-separated list
static std::vector<std::string> tc_split(const char *list)
{
    std::vector<std::string> out;
    std::stringstream ss(list);
    std::string item;
    while (std::getline(ss, item, ','))
        out.push_back(item);
    return out;
}

static bool parse_sizes(const char *list, std::vector<Size> *out)
{
    out->clear();
    for (const std::string &item : tc_split(list)) {
        Size s;
        if (sscanf(item.c_str(), "%dx%dx%d", &s.M, &s.N, &s.K) != 3 || s.M < 1 || s.N < 1 ||
            s.K < 1)
            return false;
        out->push_back(s);
    }
    return !out->empty();
}

static std::string size_text(const Size &s)
{
    return std::to_string(s.M) + "x" + std::to_string(s.N) + "x" + std::to_string(s.K);
}

// The sizes the check runs: the check sizes, then each time size not among them, each with
// its index in checks + times (the seed of its inputs is the run's seed + that index).
static std::vector<std::pair<size_t, Size>> tc_check_sizes(const std::vector<Size> &checks,
                                                           const std::vector<Size> &times)
{
    std::vector<std::pair<size_t, Size>> out;
    for (size_t si = 0; si < checks.size() + times.size(); si++) {
        const Size s = si < checks.size() ? checks[si] : times[si - checks.size()];
        bool seen = false;
        for (const auto &o : out)
            seen = seen || (o.second.M == s.M && o.second.N == s.N && o.second.K == s.K);
        if (!seen)
            out.emplace_back(si, s);
    }
    return out;
}

// Appends the file at path to *out; false when it cannot be read.
static bool read_file(const std::string &path, std::string *out)
{
    std::ifstream f(path);
    if (!f)
        return false;
    std::stringstream ss;
    ss << f.rdbuf();
    *out += ss.str();
    return true;
}

// The configs of a --configs file, one a line: each line up to its '#', blank ones skipped.
static bool read_config_lines(const char *path, std::vector<std::string> *out)
{
    std::ifstream f(path);
    if (!f)
        return false;
    std::string line;
    while (std::getline(f, line)) {
        line = line.substr(0, line.find('#'));
        if (line.find_first_not_of(" \t\r") != std::string::npos)
            out->push_back(line);
    }
    return true;
}

// source compiled by NVRTC (as the file `name`) with opts: the cubin, empty when it does not
// compile; *log is NVRTC's log (with ptxas's report under --ptxas-options=-v).
static std::vector<char> nvrtc_cubin(const std::string &source, const std::string &name,
                                     const std::vector<std::string> &opts, std::string *log)
{
    std::vector<const char *> o;
    for (const auto &s : opts)
        o.push_back(s.c_str());
    nvrtcProgram prog;
    std::vector<char> cubin;
    if (nvrtcCreateProgram(&prog, source.c_str(), name.c_str(), 0, NULL, NULL) != NVRTC_SUCCESS) {
        *log = "nvrtcCreateProgram failed";
        return cubin;
    }
    const nvrtcResult r = nvrtcCompileProgram(prog, (int)o.size(), o.data());
    size_t n = 0;
    nvrtcGetProgramLogSize(prog, &n);
    log->assign(n, '\0');
    if (n > 1)
        nvrtcGetProgramLog(prog, &(*log)[0]);
    if (r == NVRTC_SUCCESS && nvrtcGetCUBINSize(prog, &n) == NVRTC_SUCCESS) {
        cubin.resize(n);
        nvrtcGetCUBIN(prog, cubin.data());
    }
    nvrtcDestroyProgram(&prog);
    return cubin;
}

// The options cutune's worker gives NVRTC besides the parameters (core/src/worker/compile.c):
// the dtype, layout and epilogue macros, the architecture (sm_<arch>), -std=c++17 -default-device, and
// with verbose, ptxas's report.
static void tc_nvrtc_options(std::vector<std::string> *opts, const std::string &dtype, bool nt,
                             const std::string &arch, bool verbose)
{
    std::string macro = "-DCUTUNE_DTYPE_" + dtype + "=1";
    for (char &ch : macro)
        ch = (char)toupper((unsigned char)ch);
    opts->push_back(macro);
    opts->push_back(nt ? "-DCUTUNE_LAYOUT_NT=1" : "-DCUTUNE_LAYOUT_NN=1");
    opts->push_back("-DCUTUNE_EPILOGUE_NONE=1"); // no bias: tc_launch passes NULL
    opts->push_back("--gpu-architecture=sm_" + arch);
    opts->push_back("-std=c++17");
    opts->push_back("-default-device");
    if (verbose)
        opts->push_back("--ptxas-options=-v");
}

// ptxas's report in an NVRTC log: "Used N registers", "N bytes stack frame, N bytes spill
// stores, N bytes spill loads"; -1 where the log does not say.
struct PtxasReport {
    long regs, spill_stores, spill_loads;
};

static PtxasReport ptxas_report(const std::string &log)
{
    auto number_before = [&](const char *what) {
        const size_t at = log.find(what);
        if (at == std::string::npos || at < 2)
            return -1L;
        const size_t start = log.find_last_not_of("0123456789", at - 2) + 1;
        return strtol(log.c_str() + start, NULL, 10);
    };
    const size_t used = log.find("Used ");
    return {used == std::string::npos ? -1 : strtol(log.c_str() + used + 5, NULL, 10),
            number_before("bytes spill stores"), number_before("bytes spill loads")};
}

#endif
