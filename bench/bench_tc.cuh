// What bench_mma.cu and bench_tf32.cu share: problem sizes ("MxNxK" lists), the files they
// read (kernels, headers, --configs), the NVRTC compile and ptxas's report, the random inputs'
// hash, the grid of the elementwise kernels, and the median time of a launch.
// Include after cuda_check.h.
#ifndef CUTUNE_BENCH_TC_CUH
#define CUTUNE_BENCH_TC_CUH

#include <nvrtc.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

struct Size {
    int M, N, K;
};

static bool parse_sizes(const char *list, std::vector<Size> *out)
{
    out->clear();
    std::stringstream ss(list);
    std::string item;
    while (std::getline(ss, item, ',')) {
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

__device__ uint64_t mix(uint64_t x) // splitmix64's finaliser
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static int grid_for(size_t n)
{
    return (int)std::min<size_t>((n + 255) / 256, 65535 * 4);
}

// Median milliseconds of `reps` launches (each timed alone, after 3 warm-up launches).
template <class F> static double time_ms(F launch, int reps)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int i = 0; i < 3; i++)
        CK(launch());
    std::vector<float> t(reps);
    for (int i = 0; i < reps; i++) {
        CK(cudaEventRecord(a));
        CK(launch());
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        CK(cudaEventElapsedTime(&t[i], a, b));
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    std::sort(t.begin(), t.end());
    return t[reps / 2];
}

#endif
