// Probe: does cuBLASLt have faster configs than its heuristic's top 16 for the small
// transformer's bf16 nt + bias GEMMs? Times heuristic results as given, then with
// overrides of swizzle / split-K / tile / stages / cluster (checked by AlgoCheck).
#include <cublasLt.h>
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#define CK(x) do { auto e = (x); if ((int)e) { printf("%s:%d %s = %d\n", __FILE__, __LINE__, #x, (int)e); exit(1);} } while (0)

static cublasLtHandle_t h;
static void *ws; static size_t WS = 32u << 20;
static cudaEvent_t e0, e1;
#include <chrono>
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
static int ROUNDS = 5;
static const int TILES[][3] = {{1,8,8},{2,8,16},{3,16,8},{4,8,32},{5,16,16},{6,32,8},{7,8,64},{8,16,32},{9,32,16},{10,64,8},{11,32,32},{12,32,64},{13,64,32},{14,32,128},{15,64,64},{16,128,32},{17,64,128},{18,128,64},{19,64,256},{20,128,128},{21,256,64},{22,64,512},{23,128,256},{24,256,128},{25,512,64},{26,64,96},{27,96,64},{28,96,128},{29,128,160},{30,160,128},{31,192,128},{32,128,192},{33,128,96},{34,32,256},{35,256,32},{36,8,128},{37,8,192},{38,8,256},{39,8,320},{40,8,384},{41,8,448},{42,8,512},{43,8,576},{44,8,640},{45,8,704},{46,8,768},{47,16,64},{48,16,128},{49,16,192},{50,16,256},{51,16,320},{52,16,384},{53,16,448},{54,16,512},{55,16,576},{56,16,640},{57,16,704},{58,16,768},{59,24,64},{60,24,128},{61,24,192},{62,24,256},{63,24,320},{64,24,384},{65,24,448},{66,24,512},{67,24,576},{68,24,640},{69,24,704},{70,24,768},{71,32,192},{72,32,320},{73,32,384},{74,32,448},{75,32,512},{76,32,576},{77,32,640},{78,32,704},{79,32,768},{80,40,64},{81,40,128},{82,40,192},{83,40,256},{84,40,320},{85,40,384},{86,40,448},{87,40,512},{88,40,576},{89,40,640},{90,40,704},{91,40,768},{92,48,64},{93,48,128},{94,48,192},{95,48,256},{96,48,320},{97,48,384},{98,48,448},{99,48,512},{100,48,576},{101,48,640},{102,48,704},{103,48,768},{104,56,64},{105,56,128},{106,56,192},{107,56,256},{108,56,320},{109,56,384},{110,56,448},{111,56,512},{112,56,576},{113,56,640},{114,56,704},{115,56,768},{116,64,192},{117,64,320},{118,64,384},{119,64,448},{120,64,576},{121,64,640},{122,64,704},{123,64,768},{124,72,64},{125,72,128},{126,72,192},{127,72,256},{128,72,320},{129,72,384},{130,72,448},{131,72,512},{132,72,576},{133,72,640},{134,80,64},{135,80,128},{136,80,192},{137,80,256},{138,80,320},{139,80,384},{140,80,448},{141,80,512},{142,80,576},{143,88,64},{144,88,128},{145,88,192},{146,88,256},{147,88,320},{148,88,384},{149,88,448},{150,88,512},{151,96,192},{152,96,256},{153,96,320},{154,96,384},{155,96,448},{156,96,512},{157,104,64},{158,104,128},{159,104,192},{160,104,256},{161,104,320},{162,104,384},{163,104,448},{164,112,64},{165,112,128},{166,112,192},{167,112,256},{168,112,320},{169,112,384},{170,120,64},{171,120,128},{172,120,192},{173,120,256},{174,120,320},{175,120,384},{176,128,320},{177,128,384},{178,136,64},{179,136,128},{180,136,192},{181,136,256},{182,136,320},{183,144,64},{184,144,128},{185,144,192},{186,144,256},{187,144,320},{188,152,64},{189,152,128},{190,152,192},{191,152,256},{192,152,320},{193,160,64},{194,160,192},{195,160,256},{196,168,64},{197,168,128},{198,168,192},{199,168,256},{200,176,64},{201,176,128},{202,176,192},{203,176,256},{204,184,64},{205,184,128},{206,184,192},{207,184,256},{208,192,64},{209,192,192},{210,192,256},{211,200,64},{212,200,128},{213,200,192},{214,208,64},{215,208,128},{216,208,192},{217,216,64},{218,216,128},{219,216,192},{220,224,64},{221,224,128},{222,224,192},{223,232,64},{224,232,128},{225,232,192},{226,240,64},{227,240,128},{228,240,192},{229,248,64},{230,248,128},{231,248,192},{232,256,192},{233,264,64},{234,264,128},{235,272,64},{236,272,128},{237,280,64},{238,280,128},{239,288,64},{240,288,128},{241,296,64},{242,296,128},{243,304,64},{244,304,128},{245,312,64},{246,312,128},{247,320,64},{248,320,128},{249,328,64},{250,328,128},{251,336,64},{252,336,128},{253,344,64},{254,344,128},{255,352,64},{256,352,128},{257,360,64},{258,360,128},{259,368,64},{260,368,128},{261,376,64},{262,376,128},{263,384,64},{264,384,128},{265,392,64},{266,400,64},{267,408,64},{268,416,64},{269,424,64},{270,432,64},{271,440,64},{272,448,64},{273,456,64},{274,464,64},{275,472,64},{276,480,64},{277,488,64},{278,496,64},{279,504,64},{280,520,64},{281,528,64},{282,536,64},{283,544,64},{284,552,64},{285,560,64},{286,568,64},{287,576,64},{288,584,64},{289,592,64},{290,600,64},{291,608,64},{292,616,64},{293,624,64},{294,632,64},{295,640,64},{296,648,64},{297,656,64},{298,664,64},{299,672,64},{300,680,64},{301,688,64},{302,696,64},{303,704,64},{304,712,64},{305,720,64},{306,728,64},{307,736,64},{308,744,64},{309,752,64},{310,760,64},{311,768,64},{312,64,16},{313,64,24},{314,64,40},{315,64,48},{316,64,56},{317,64,72},{318,64,80},{319,64,88},{320,64,104},{321,64,112},{322,64,120},{323,64,136},{324,64,144},{325,64,152},{326,64,160},{327,64,168},{328,64,176},{329,64,184},{330,64,200},{331,64,208},{332,64,216},{333,64,224},{334,64,232},{335,64,240},{336,64,248},{337,64,264},{338,64,272},{339,64,280},{340,64,288},{341,64,296},{342,64,304},{343,64,312},{344,64,328},{345,64,336},{346,64,344},{347,64,352},{348,64,360},{349,64,368},{350,64,376},{351,64,392},{352,64,400},{353,64,408},{354,64,416},{355,64,424},{356,64,432},{357,64,440},{358,64,456},{359,64,464},{360,64,472},{361,64,480},{362,64,488},{363,64,496},{364,64,504},{365,64,520},{366,64,528},{367,64,536},{368,64,544},{369,64,552},{370,64,560},{371,64,568},{372,64,584},{373,64,592},{374,64,600},{375,64,608},{376,64,616},{377,64,624},{378,64,632},{379,64,648},{380,64,656},{381,64,664},{382,64,672},{383,64,680},{384,64,688},{385,64,696},{386,64,712},{387,64,720},{388,64,728},{389,64,736},{390,64,744},{391,64,752},{392,64,760},{393,128,8},{394,128,16},{395,128,24},{396,128,40},{397,128,48},{398,128,56},{399,128,72},{400,128,80},{401,128,88},{402,128,104},{403,128,112},{404,128,120},{405,128,136},{406,128,144},{407,128,152},{408,128,168},{409,128,176},{410,128,184},{411,128,200},{412,128,208},{413,128,216},{414,128,224},{415,128,232},{416,128,240},{417,128,248},{418,128,264},{419,128,272},{420,128,280},{421,128,288},{422,128,296},{423,128,304},{424,128,312},{425,128,328},{426,128,336},{427,128,344},{428,128,352},{429,128,360},{430,128,368},{431,128,376},{432,128,392},{433,128,400},{434,128,408},{435,128,416},{436,128,424},{437,128,432},{438,128,440},{439,128,448},{440,128,456},{441,128,464},{442,128,472},{443,128,480},{444,128,488},{445,128,496},{446,128,504},{447,128,512},{448,192,8},{449,192,16},{450,192,24},{451,192,32},{452,192,40},{453,192,48},{454,192,56},{455,192,72},{456,192,80},{457,192,88},{458,192,96},{459,192,104},{460,192,112},{461,192,120},{462,192,136},{463,192,144},{464,192,152},{465,192,160},{466,192,168},{467,192,176},{468,192,184},{469,192,200},{470,192,208},{471,192,216},{472,192,224},{473,192,232},{474,192,240},{475,192,248},{476,192,264},{477,192,272},{478,192,280},{479,192,288},{480,192,296},{481,192,304},{482,192,312},{483,192,320},{484,192,328},{485,192,336},{486,256,8},{487,256,16},{488,256,24},{489,256,40},{490,256,48},{491,256,56},{492,256,72},{493,256,80},{494,256,88},{495,256,96},{496,256,104},{497,256,112},{498,256,120},{499,256,136},{500,256,144},{501,256,152},{502,256,160},{503,256,168},{504,256,176},{505,256,184},{506,256,200},{507,256,208},{508,256,216},{509,256,224},{510,256,232},{511,256,240},{512,256,248},{513,256,256},{514,320,8},{515,320,16},{516,320,24},{517,320,32},{518,320,40},{519,320,48},{520,320,56},{521,320,72},{522,320,80},{523,320,88},{524,320,96},{525,320,104},{526,320,112},{527,320,120},{528,320,136},{529,320,144},{530,320,152},{531,320,160},{532,320,168},{533,320,176},{534,320,184},{535,320,192},{536,320,200},{537,384,8},{538,384,16},{539,384,24},{540,384,32},{541,384,40},{542,384,48},{543,384,56},{544,384,72},{545,384,80},{546,384,88},{547,384,96},{548,384,104},{549,384,112},{550,384,120},{551,384,136},{552,384,144},{553,384,152},{554,384,160},{555,384,168},{556,448,8},{557,448,16},{558,448,24},{559,448,32},{560,448,40},{561,448,48},{562,448,56},{563,448,72},{564,448,80},{565,448,88},{566,448,96},{567,448,104},{568,448,112},{569,448,120},{570,448,128},{571,448,136},{572,448,144},{573,512,8},{574,512,16},{575,512,24},{576,512,32},{577,512,40},{578,512,48},{579,512,56},{580,512,72},{581,512,80},{582,512,88},{583,512,96},{584,512,104},{585,512,112},{586,512,120},{587,512,128},{588,576,8},{589,576,16},{590,576,24},{591,576,32},{592,576,40},{593,576,48},{594,576,56},{595,576,72},{596,576,80},{597,576,88},{598,576,96},{599,576,104},{600,576,112},{601,640,8},{602,640,16},{603,640,24},{604,640,32},{605,640,40},{606,640,48},{607,640,56},{608,640,72},{609,640,80},{610,640,88},{611,640,96},{612,704,8},{613,704,16},{614,704,24},{615,704,32},{616,704,40},{617,704,48},{618,704,56},{619,704,72},{620,704,80},{621,704,88},{622,768,8},{623,768,16},{624,768,24},{625,768,32},{626,768,40},{627,768,48},{628,768,56},{629,768,72},{630,768,80},{631,256,512},{632,256,1024},{633,512,512},{634,512,1024}};
static const int CLS[][3] = {{2,1,1},{3,2,1},{4,4,1},{5,1,2},{6,2,2},{7,4,2},{8,1,4},{9,2,4},{10,4,4},{11,8,1},{12,1,8},{13,8,2},{14,2,8},{15,16,1},{16,1,16},{17,3,1},{18,5,1},{19,6,1},{20,7,1},{21,9,1},{22,10,1},{23,11,1},{24,12,1},{25,13,1},{26,14,1},{27,15,1},{28,3,2},{29,5,2},{30,6,2},{31,7,2},{32,1,3},{33,2,3},{34,3,3},{35,4,3},{36,5,3},{37,3,4},{38,1,5},{39,2,5},{40,3,5},{41,1,6},{42,2,6},{43,1,7},{44,2,7},{45,1,9},{46,1,10},{47,1,11},{48,1,12},{49,1,13},{50,1,14},{51,1,15}};

static const char *tname(int id) { static char b[16]; for (auto &t : TILES) if (t[0] == id) { snprintf(b, 16, "%dx%d", t[1], t[2]); return b; } snprintf(b, 16, "t%d", id); return b; }
static const char *cname(int id) { static char b[16]; for (auto &t : CLS) if (t[0] == id) { snprintf(b, 16, "%dx%d", t[1], t[2]); return b; } snprintf(b, 16, "c%d", id); return b; }
struct R { float t; int tile, cl, op; };


static float timeit(cublasLtMatmulDesc_t d, cublasLtMatrixLayout_t lb, cublasLtMatrixLayout_t la,
                    cublasLtMatrixLayout_t lc, const void *A, const void *B, void *C,
                    const cublasLtMatmulAlgo_t *algo, size_t wss) {
  float one = 1, zero = 0;
  for (int i = 0; i < (ROUNDS == 1 ? 2 : 5); i++)
    if (cublasLtMatmul(h, d, &one, B, lb, A, la, &zero, C, lc, C, lc, algo, ws, wss, 0)) return -1;
  float best = 1e9;
  for (int r = 0; r < ROUNDS; r++) {
    cudaEventRecord(e0);
    for (int i = 0; i < (ROUNDS == 1 ? 10 : 20); i++) cublasLtMatmul(h, d, &one, B, lb, A, la, &zero, C, lc, C, lc, algo, ws, wss, 0);
    cudaEventRecord(e1); cudaEventSynchronize(e1);
    float ms; cudaEventElapsedTime(&ms, e0, e1); best = std::min(best, ms / (ROUNDS == 1 ? 10 : 20));
  }
  if (cudaGetLastError()) return -1;
  return best;
}
static int cfg(const cublasLtMatmulAlgo_t *a, cublasLtMatmulAlgoConfigAttributes_t at) {
  int v = 0; size_t w; uint32_t u = 0; uint16_t s = 0;
  if (at == CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID || at == CUBLASLT_ALGO_CONFIG_TILE_ID && 0) { }
  if (cublasLtMatmulAlgoConfigGetAttribute(a, at, &u, 4, &w) == 0) v = (int)u;
  else if (cublasLtMatmulAlgoConfigGetAttribute(a, at, &s, 2, &w) == 0) v = s;
  return v;
}
int main(int argc, char **argv) {
  CK(cublasLtCreate(&h)); CK(cudaMalloc(&ws, WS)); cudaEventCreate(&e0); cudaEventCreate(&e1);
  int shapes[][4] = {{4096,1024,4096,1},{4096,3072,1024,1},{8192,8192,64,0},{4096,4096,4096,0}};
  for (auto &s : shapes) {
    int M = s[0], N = s[1], K = s[2];
    { int bias = s[3]; double tstart = now();
    void *A, *B, *C, *bv;
    CK(cudaMalloc(&A, (size_t)M*K*2)); CK(cudaMalloc(&B, (size_t)N*K*2)); CK(cudaMalloc(&C, (size_t)M*N*2)); CK(cudaMalloc(&bv, N*2));
    cudaMemset(A, 0x3c, (size_t)M*K*2); cudaMemset(B, 0x3c, (size_t)N*K*2); cudaMemset(bv, 0, N*2);
    cublasLtMatmulDesc_t d; CK(cublasLtMatmulDescCreate(&d, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    CK(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    CK(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    if (bias) {
      cublasLtEpilogue_t ep = CUBLASLT_EPILOGUE_BIAS;
      CK(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_EPILOGUE, &ep, sizeof ep));
      CK(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bv, sizeof bv));
    }
    cublasLtMatrixLayout_t lb, la, lc;
    CK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_16BF, K, N, K));
    CK(cublasLtMatrixLayoutCreate(&la, CUDA_R_16BF, K, M, K));
    CK(cublasLtMatrixLayoutCreate(&lc, CUDA_R_16BF, N, M, N));
    cublasLtMatmulPreference_t pref; CK(cublasLtMatmulPreferenceCreate(&pref));
    uint64_t wsl = WS; CK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsl, sizeof wsl));
    cublasLtMatmulHeuristicResult_t hr[16]; int found = 0;
    CK(cublasLtMatmulAlgoGetHeuristic(h, d, lb, la, lc, lc, pref, 16, hr, &found));
    float t0 = timeit(d, lb, la, lc, A, B, C, &hr[0].algo, hr[0].workspaceSize);
    float bh = 1e9; int bhi = -1;
    for (int i = 0; i < found; i++) {
      float t = timeit(d, lb, la, lc, A, B, C, &hr[i].algo, hr[i].workspaceSize);
      if (t > 0 && t < bh) { bh = t; bhi = i; }
    }
    // overrides: for each heuristic algo, swizzle 0..1, splitK 1,2,4 (reduction inplace/compute), custom options
    float bo = 1e9; char bod[256] = ""; int tried = 0, valid = 0;
    
    for (int i = 0; i < found; i++) {
      int id = cfg(&hr[i].algo, CUBLASLT_ALGO_CONFIG_ID);
      int tile = cfg(&hr[i].algo, CUBLASLT_ALGO_CONFIG_TILE_ID), st = cfg(&hr[i].algo, CUBLASLT_ALGO_CONFIG_STAGES_ID);
      int sk = cfg(&hr[i].algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM), sw = cfg(&hr[i].algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING);
      int cl = cfg(&hr[i].algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID), co = cfg(&hr[i].algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION);
      printf("  h%-2d id %d tile %d stages %d splitk %d swz %d cluster %d opt %d ws %zu: %.4f ms\n", i, id, tile, st, sk, sw, cl, co, hr[i].workspaceSize,
             timeit(d, lb, la, lc, A, B, C, &hr[i].algo, hr[i].workspaceSize));
      for (int swz = 0; swz <= 4; swz++)
        for (int skn : {1, 2, 3, 4})
          for (int red : {0, 1, 2, 4}) {
            if (skn == 1 && red) continue;
            cublasLtMatmulAlgo_t a = hr[i].algo;
            uint32_t u = swz; if (cublasLtMatmulAlgoConfigSetAttribute(&a, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, &u, 4)) continue;
            int32_t k = skn; if (cublasLtMatmulAlgoConfigSetAttribute(&a, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &k, 4)) continue;
            uint32_t r = red; if (cublasLtMatmulAlgoConfigSetAttribute(&a, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &r, 4)) continue;
            tried++;
            cublasLtMatmulHeuristicResult_t chk;
            if (cublasLtMatmulAlgoCheck(h, d, lb, la, lc, lc, &a, &chk) || chk.state || chk.workspaceSize > WS) continue;
            valid++;
            float t = timeit(d, lb, la, lc, A, B, C, &a, chk.workspaceSize);
            if (t > 0 && t < bo) { bo = t; snprintf(bod, sizeof bod, "h%d swz %d splitk %d red %d", i, swz, skn, red); }
          }
    }
    // full enumeration of tiles x stages x cluster for the heuristic's algo ids
    float bf = 1e9; char bfd[256] = ""; int ftried = 0, fvalid = 0; ROUNDS = 1; cublasLtMatmulAlgo_t bestfull; size_t bestws = 0;
    {
      cublasLtMatmulAlgo_t a0 = hr[0].algo;
      std::vector<R> rs; std::vector<std::pair<int,int>> tileval; // tile -> count
      for (auto &tt : TILES) for (auto &cc : CLS) for (uint32_t op = 0; op < 8; op++) {
        uint32_t t = tt[0]; uint16_t cl = cc[0];
        cublasLtMatmulAlgo_t a = a0;
        if (cublasLtMatmulAlgoConfigSetAttribute(&a, CUBLASLT_ALGO_CONFIG_TILE_ID, &t, 4)) continue;
        if (cublasLtMatmulAlgoConfigSetAttribute(&a, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, &cl, 2)) continue;
        if (cublasLtMatmulAlgoConfigSetAttribute(&a, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, &op, 4)) continue;
        ftried++;
        cublasLtMatmulHeuristicResult_t chk;
        if (cublasLtMatmulAlgoCheck(h, d, lb, la, lc, lc, &a, &chk) || chk.state || chk.workspaceSize > WS) continue;
        fvalid++;
        if (now() - tstart > 45) continue;
        float tm = timeit(d, lb, la, lc, A, B, C, &a, chk.workspaceSize);
        if (tm > 0) rs.push_back({tm, (int)t, (int)cl, (int)op});
        if (tm > 0 && tm < bf) { bf = tm; snprintf(bfd, sizeof bfd, "tile %s cluster %s opt %u", tname(t), cname(cl), op); bestfull = a; bestws = chk.workspaceSize; }
      }
      std::sort(rs.begin(), rs.end(), [](const R &x, const R &y) { return x.t < y.t; });
      printf("  timed %zu of %d valid\n", rs.size(), fvalid);
      for (size_t i = 0; i < rs.size() && i < 12; i++) printf("  top %zu: %.4f tile %s cluster %s opt %d\n", i, rs[i].t, tname(rs[i].tile), cname(rs[i].cl), rs[i].op);
      // valid tiles, clusters, options (over all timed)
      std::vector<int> ts, cs, os;
      for (auto &r : rs) { if (std::find(ts.begin(), ts.end(), r.tile) == ts.end()) ts.push_back(r.tile); if (std::find(cs.begin(), cs.end(), r.cl) == cs.end()) cs.push_back(r.cl); if (std::find(os.begin(), os.end(), r.op) == os.end()) os.push_back(r.op); }
      printf("  tiles:"); for (int t : ts) { float b = 1e9; int n = 0; for (auto &r : rs) if (r.tile == t) { n++; b = std::min(b, r.t); } printf(" %s(%d,%.4f)", tname(t), n, b); } printf("\n");
      printf("  clusters:"); for (int c : cs) { float b = 1e9; int n = 0; for (auto &r : rs) if (r.cl == c) { n++; b = std::min(b, r.t); } printf(" %s(%d,%.4f)", cname(c), n, b); } printf("\n");
      printf("  options:"); for (int o : os) { float b = 1e9; int n = 0; for (auto &r : rs) if (r.op == o) { n++; b = std::min(b, r.t); } printf(" %d(%d,%.4f)", o, n, b); } printf("\n");
    }
    ROUNDS = 5;
    if (bf < 1e9) bf = timeit(d, lb, la, lc, A, B, C, &bestfull, bestws);
    t0 = timeit(d, lb, la, lc, A, B, C, &hr[0].algo, hr[0].workspaceSize);
    printf("%dx%dx%d%s: default %.4f | best heuristic h%d %.4f (%.3fx) | overrides %d/%d best %.4f (%.3fx) %s | full %d/%d best %.4f (%.3fx) %s\n",
           M, N, K, bias ? "-bias" : "", t0, bhi, bh, t0 / bh, valid, tried, bo, t0 / bo, bod, fvalid, ftried, bf, t0 / bf, bfd);
    fflush(stdout);
    cudaFree(A); cudaFree(B); cudaFree(C); cudaFree(bv);
    cublasLtMatmulDescDestroy(d); cublasLtMatrixLayoutDestroy(la); cublasLtMatrixLayoutDestroy(lb); cublasLtMatrixLayoutDestroy(lc); cublasLtMatmulPreferenceDestroy(pref);
    }
  }
}
