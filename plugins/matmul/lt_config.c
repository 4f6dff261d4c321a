/* A cuBLASLt plan's configuration (lt_int.h): a config's overrides of the heuristic's
 * algorithm (its tile, cluster shape and custom option, set with
 * cublasLtMatmulAlgoConfigSetAttribute and checked with cublasLtMatmulAlgoCheck, as
 * cuBLASLt's own autotuning sample does). lt.c describes the algorithm for trial messages.
 *
 * Tiles and cluster shapes are cuBLASLt's enums (cublasLtMatmulTile_t,
 * cublasLtClusterShape_t in cublasLt.h): the values below are those of the tiles the
 * variant's space names (tuning_spaces/matmul_cublaslt.ini) and of the clusters up to 4 x 4.
 * cuBLASLt's names are of its column-major C^T: its tile "m x n" is the op's n columns of C
 * by its m rows, so the op's TILE_M x TILE_N is cuBLASLt's TILE_N x TILE_M. */
#include "lt_int.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* cuBLASLt's m, n (the op's N, M) and the enum's value */
static const uint16_t tiles[][3] = {
    {64, 64, 15},    {64, 80, 318},   {64, 88, 319},   {64, 104, 320},  {64, 128, 17},
    {64, 152, 325},  {64, 160, 326},  {64, 192, 116},  {64, 256, 19},   {128, 64, 18},
    {128, 80, 400},  {128, 88, 401},  {128, 104, 402}, {128, 128, 20},  {128, 152, 407},
    {128, 160, 29},  {128, 192, 32},  {128, 256, 23},  {192, 64, 208},  {192, 80, 456},
    {192, 88, 457},  {192, 104, 459}, {192, 128, 31},  {192, 152, 464}, {192, 160, 465},
    {192, 192, 209}, {192, 256, 210}, {256, 64, 21},   {256, 80, 493},  {256, 88, 494},
    {256, 104, 496}, {256, 128, 24},  {256, 152, 501}, {256, 160, 502}, {256, 192, 232},
    {256, 256, 513}, {320, 64, 247},  {320, 80, 522},  {320, 88, 523},  {320, 104, 525},
    {320, 128, 248}, {320, 152, 530}, {320, 160, 531}, {320, 192, 535},
};
static const uint16_t clusters[][3] = {
    {1, 1, 2}, {2, 1, 3}, {4, 1, 4}, {1, 2, 5},  {2, 2, 6},
    {4, 2, 7}, {1, 4, 8}, {2, 4, 9}, {4, 4, 10},
};

static int find(const uint16_t (*t)[3], size_t n, int lt_m, int lt_n)
{
    for (size_t i = 0; i < n; i++)
        if (t[i][0] == lt_m && t[i][1] == lt_n)
            return t[i][2];
    return -1;
}

int lt_config_apply(LtPlan *c, const LtOverride *ov, char *why, size_t len)
{
    const LtApi *a = c->api;
    if (!ov->tile_m && !ov->tile_n && !ov->cluster_m && !ov->cluster_n && ov->option < 0)
        return 0;
    int n = 0;
    if (ov->tile_m)
        n += snprintf(c->set + n, sizeof c->set - (size_t)n, "tile %dx%d, ", ov->tile_m,
                      ov->tile_n);
    if (ov->cluster_m)
        n += snprintf(c->set + n, sizeof c->set - (size_t)n, "cluster %dx%d, ", ov->cluster_m,
                      ov->cluster_n);
    if (ov->option >= 0)
        n += snprintf(c->set + n, sizeof c->set - (size_t)n, "option %d, ", ov->option);
    if (n >= 2)
        c->set[n - 2] = '\0';
    if (!a->config_set || !a->check) {
        snprintf(why, len,
                 "%s: the cuBLASLt at %s cannot set an algorithm's configuration (it lacks "
                 "cublasLtMatmulAlgoConfigSetAttribute or cublasLtMatmulAlgoCheck)",
                 c->set, a->path);
        return CUTUNE_ERR_RESOURCES;
    }
    int tile = ov->tile_m ? find(tiles, sizeof tiles / sizeof *tiles, ov->tile_n, ov->tile_m) : 0;
    int cluster = ov->cluster_m ? find(clusters, sizeof clusters / sizeof *clusters, ov->cluster_n,
                                       ov->cluster_m)
                                : 0;
    if (tile < 0 || cluster < 0) {
        snprintf(why, len,
                 "%s: the %s is not one cutune can ask cuBLASLt for (plugins/matmul/lt_config.c "
                 "lists them)",
                 c->set, tile < 0 ? "tile" : "cluster");
        return CUTUNE_ERR_RESOURCES;
    }
    LtAlgo algo = c->algo;
    uint32_t t32 = (uint32_t)tile, o32 = (uint32_t)ov->option;
    uint16_t c16 = (uint16_t)cluster;
    int st = 0;
    if ((ov->tile_m && (st = a->config_set(&algo, CONFIG_TILE_ID, &t32, sizeof t32))) ||
        (ov->cluster_m && (st = a->config_set(&algo, CONFIG_CLUSTER_SHAPE_ID, &c16, sizeof c16))) ||
        (ov->option >= 0 && (st = a->config_set(&algo, CONFIG_CUSTOM_OPTION, &o32, sizeof o32)))) {
        snprintf(why, len, "%s: cublasLtMatmulAlgoConfigSetAttribute refused it (status %d)",
                 c->set, st);
        return CUTUNE_ERR_RESOURCES;
    }
    LtHeuristic r;
    memset(&r, 0, sizeof r);
    st = a->check(c->h, c->desc, c->lb, c->la, c->lc, c->lc, &algo, &r);
    if (st || r.state) {
        snprintf(why, len,
                 "%s: cuBLASLt does not run this configuration of its algorithm for "
                 "%dx%dx%d (cublasLtMatmulAlgoCheck: status %d)",
                 c->set, c->M, c->N, c->K, st ? st : r.state);
        return CUTUNE_ERR_RESOURCES;
    }
    if (r.workspace > c->ws_limit) {
        snprintf(why, len, "%s: it needs a workspace of %zu bytes, past the %zu MiB allowed",
                 c->set, r.workspace, c->ws_limit >> 20);
        return CUTUNE_ERR_RESOURCES;
    }
    c->algo = algo;
    c->ws_size = r.workspace;
    return 0;
}
