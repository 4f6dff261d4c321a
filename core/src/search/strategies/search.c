/* Shared machinery of the search strategies (see search.h). */
#include "search.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

uint64_t search_rng_u64(SearchRng *r)
{
    return cutune_splitmix64(&r->x);
}

double search_rng_unit(SearchRng *r)
{
    return (double)(search_rng_u64(r) >> 11) * 0x1p-53;
}

size_t search_rng_below(SearchRng *r, size_t n)
{
    return (size_t)cutune_splitmix64_below(&r->x, n);
}

void search_shuffle(size_t *v, size_t n, SearchRng *r)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = search_rng_below(r, i), t = v[i - 1];
        v[i - 1] = v[j];
        v[j] = t;
    }
}

void search_permutation(size_t *v, size_t n, SearchRng *r)
{
    for (size_t i = 0; i < n; i++)
        v[i] = i;
    search_shuffle(v, n, r);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static uint64_t hash_levels(const uint16_t *lv, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= lv[i];
        h *= 0x100000001b3ULL;
        h ^= h >> 29;
    }
    return h;
}

int search_grid_build(const CutuneConfigList *cl, SearchGrid *g)
{
    memset(g, 0, sizeof *g);
    size_t n = cl->nconfigs, p = cl->nparams;
    if (p > SEARCH_MAX_PARAMS)
        return CUTUNE_ERR_RANGE;
    int rc = CUTUNE_ERR_NOMEM;
    int64_t *col = malloc((n ? n : 1) * sizeof *col);
    g->n = n;
    g->nparams = p;
    g->nlevels = calloc(p ? p : 1, sizeof *g->nlevels);
    g->level = calloc(n * p + 1, sizeof *g->level);
    size_t cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    g->table = calloc(cap, sizeof *g->table);
    g->tmask = cap - 1;
    if (!col || !g->nlevels || !g->level || !g->table)
        goto fail;
    for (size_t j = 0; j < p; j++) {
        for (size_t i = 0; i < n; i++)
            col[i] = cl->values[i * p + j];
        qsort(col, n, sizeof *col, cmp_i64);
        size_t u = 0;
        for (size_t i = 0; i < n; i++)
            if (u == 0 || col[u - 1] != col[i])
                col[u++] = col[i];
        if (u > 65535) {
            rc = CUTUNE_ERR_RANGE;
            goto fail;
        }
        g->nlevels[j] = u;
        for (size_t i = 0; i < n; i++) {
            int64_t *hit = bsearch(&cl->values[i * p + j], col, u, sizeof *col, cmp_i64);
            g->level[i * p + j] = (uint16_t)(hit - col);
        }
    }
    for (size_t i = 0; i < n; i++) {
        size_t k = (size_t)hash_levels(&g->level[i * p], p) & g->tmask;
        while (g->table[k])
            k = (k + 1) & g->tmask;
        g->table[k] = i + 1;
    }
    free(col);
    return 0;
fail:
    free(col);
    search_grid_free(g);
    return rc;
}

void search_grid_free(SearchGrid *g)
{
    free(g->nlevels);
    free(g->level);
    free(g->table);
    memset(g, 0, sizeof *g);
}

long search_grid_find(const SearchGrid *g, const uint16_t *levels)
{
    size_t p = g->nparams;
    size_t k = (size_t)hash_levels(levels, p) & g->tmask;
    for (; g->table[k]; k = (k + 1) & g->tmask) {
        size_t i = g->table[k] - 1;
        if (memcmp(&g->level[i * p], levels, p * sizeof *levels) == 0)
            return (long)i;
    }
    return -1;
}

/* Append to out[*m] the config at levels lv with parameter j at level v, if it is valid. */
static void try_level(const SearchGrid *g, uint16_t *lv, size_t j, size_t v, size_t *out, size_t *m)
{
    uint16_t v0 = lv[j];
    lv[j] = (uint16_t)v;
    long k = search_grid_find(g, lv);
    if (k >= 0)
        out[(*m)++] = (size_t)k;
    lv[j] = v0;
}

size_t search_grid_neighbours(const SearchGrid *g, size_t i, size_t *out)
{
    size_t p = g->nparams, m = 0;
    uint16_t lv[SEARCH_MAX_PARAMS];
    memcpy(lv, &g->level[i * p], p * sizeof *lv);
    for (size_t j = 0; j < p; j++) {
        if (lv[j] > 0)
            try_level(g, lv, j, lv[j] - 1u, out, &m);
        if ((size_t)lv[j] + 1 < g->nlevels[j])
            try_level(g, lv, j, lv[j] + 1u, out, &m);
    }
    return m;
}

size_t search_grid_moves(const SearchGrid *g, size_t i, size_t *out)
{
    size_t p = g->nparams, m = 0;
    uint16_t lv[SEARCH_MAX_PARAMS];
    memcpy(lv, &g->level[i * p], p * sizeof *lv);
    for (size_t j = 0; j < p; j++)
        for (size_t v = 0; v < g->nlevels[j]; v++)
            if (v != lv[j])
                try_level(g, lv, j, v, out, &m);
    return m;
}

int search_book_init(SearchBook *b, size_t n, SearchRng *rng)
{
    memset(b, 0, sizeof *b);
    b->n = n;
    b->best = -1;
    b->state = calloc(n ? n : 1, 1);
    b->cost = malloc((n ? n : 1) * sizeof *b->cost);
    b->order = malloc((n ? n : 1) * sizeof *b->order);
    b->batch = malloc((n ? n : 1) * sizeof *b->batch);
    if (!b->state || !b->cost || !b->order || !b->batch) {
        search_book_free(b);
        return CUTUNE_ERR_NOMEM;
    }
    for (size_t i = 0; i < n; i++)
        b->cost[i] = NAN;
    search_permutation(b->order, n, rng);
    return 0;
}

void search_book_free(SearchBook *b)
{
    free(b->start);
    free(b->state);
    free(b->cost);
    free(b->order);
    free(b->batch);
    memset(b, 0, sizeof *b);
}

void search_book_propose(SearchBook *b, size_t i)
{
    b->state[i] = SEARCH_PENDING;
    b->proposed++;
    b->pending++;
}

int search_book_feedback(SearchBook *b, size_t i, CutuneStatus status, double median_ms)
{
    if (i >= b->n || b->state[i] != SEARCH_PENDING)
        return 0;
    b->state[i] = SEARCH_DONE;
    b->pending--;
    b->cost[i] = status == CUTUNE_STATUS_OK && median_ms > 0 ? median_ms : INFINITY;
    if (isfinite(b->cost[i]) && (b->best < 0 || b->cost[i] < b->cost[b->best]))
        b->best = (long)i;
    return 1;
}

int search_book_queue(SearchBook *b, size_t i)
{
    if (i >= b->n || b->state[i] != SEARCH_NEW || b->blen >= b->n)
        return 0;
    b->state[i] = SEARCH_QUEUED;
    b->batch[b->blen++] = i;
    return 1;
}

size_t search_book_queue_random(SearchBook *b, size_t *out, size_t n, size_t want)
{
    while (n < want) {
        long r = search_book_random_new(b);
        if (r < 0)
            break;
        search_book_queue(b, (size_t)r);
        if (out)
            out[n] = (size_t)r;
        n++;
    }
    return n;
}

long search_book_best_of(const SearchBook *b, const size_t *list, size_t n)
{
    long best = -1;
    for (size_t k = 0; k < n; k++)
        if (isfinite(b->cost[list[k]]) && (best < 0 || b->cost[list[k]] < b->cost[best]))
            best = (long)list[k];
    return best;
}

void search_sorted_insert(size_t *list, size_t *n, const double *cost, size_t i)
{
    size_t at = *n;
    while (at > 0) {
        size_t q = list[at - 1];
        if (cost[q] < cost[i] || (cost[q] == cost[i] && q < i))
            break;
        list[at] = q;
        at--;
    }
    list[at] = i;
    (*n)++;
}

size_t search_start_list(const CutuneStrategyArgs *a, size_t *out, unsigned char *mark)
{
    size_t n = a->configs->nconfigs, m = 0;
    for (size_t k = 0; a->start && k < a->nstart; k++) {
        size_t i = a->start[k];
        if (i < n && !mark[i]) {
            mark[i] = 1;
            out[m++] = i;
        }
    }
    return m;
}

int search_book_start(SearchBook *b, const CutuneStrategyArgs *a)
{
    if (!a->start || a->nstart == 0)
        return 0;
    b->start = malloc(a->nstart * sizeof *b->start);
    if (!b->start)
        return CUTUNE_ERR_NOMEM;
    for (size_t k = 0; k < a->nstart; k++) {
        size_t i = a->start[k];
        if (search_book_queue(b, i)) /* queue() skips what is out of range or seen */
            b->start[b->nstart++] = i;
    }
    return 0;
}

int search_next(SearchBook *b, size_t *index, void (*step)(void *st), void *st)
{
    for (;;) {
        if (b->bhead < b->blen) {
            size_t i = b->batch[b->bhead++];
            search_book_propose(b, i);
            *index = i;
            return CUTUNE_NEXT_READY;
        }
        if (b->pending)
            return CUTUNE_NEXT_WAIT;
        if (b->proposed >= b->n)
            return CUTUNE_NEXT_DONE;
        b->bhead = b->blen = 0;
        step(st);
        if (b->blen == 0) {
            long r = search_book_random_new(b);
            if (r < 0)
                return CUTUNE_NEXT_DONE;
            search_book_queue(b, (size_t)r);
        }
    }
}

long search_book_random_new(SearchBook *b)
{
    while (b->cursor < b->n && b->state[b->order[b->cursor]] != SEARCH_NEW)
        b->cursor++;
    return b->cursor < b->n ? (long)b->order[b->cursor] : -1;
}

int search_base_create(size_t size, const CutuneStrategyArgs *a, uint64_t salt,
                       void (*step)(void *state), void **state)
{
    SearchBase *s = calloc(1, size);
    if (!s)
        return CUTUNE_ERR_NOMEM;
    size_t n = a->configs->nconfigs;
    s->rng.x = a->seed ^ salt;
    s->budget = a->budget ? a->budget : n;
    s->parallel = a->parallel > 1 ? a->parallel : 1;
    s->step = step;
    int rc = search_grid_build(a->configs, &s->g);
    if (!rc)
        rc = search_book_init(&s->b, n, &s->rng);
    if (!rc)
        rc = search_book_start(&s->b, a);
    if (!rc) { /* a neighbour differs in one parameter: at most nlevels - 1 of each */
        size_t room = 1;
        for (size_t j = 0; j < s->g.nparams; j++)
            room += s->g.nlevels[j];
        if (!(s->nb = malloc(room * sizeof *s->nb)))
            rc = CUTUNE_ERR_NOMEM;
    }
    if (rc) {
        search_base_destroy(s);
        return rc;
    }
    *state = s;
    return 0;
}

void search_base_destroy(void *state)
{
    SearchBase *s = state;
    if (!s)
        return;
    search_grid_free(&s->g);
    search_book_free(&s->b);
    free(s->nb);
    free(s);
}

int search_base_next(void *state, size_t *index)
{
    SearchBase *s = state;
    return search_next(&s->b, index, s->step, state);
}

void search_base_feedback(void *state, size_t index, CutuneStatus status, double median_ms)
{
    SearchBase *s = state;
    search_book_feedback(&s->b, index, status, median_ms);
}

SearchList *search_list_new(size_t cap)
{
    SearchList *s = malloc(sizeof *s + (cap + 1) * sizeof *s->order);
    if (s)
        s->next = s->count = 0;
    return s;
}

int search_list_create(const CutuneStrategyArgs *a, int shuffled, void **state)
{
    size_t n = a->configs->nconfigs;
    SearchList *s = search_list_new(n + a->nstart);
    unsigned char *mark = calloc(n ? n : 1, 1);
    if (!s || !mark) {
        free(s);
        free(mark);
        return CUTUNE_ERR_NOMEM;
    }
    size_t *perm = s->order;
    if (shuffled) {
        SearchRng rng = {a->seed};
        search_permutation(perm, n, &rng);
    } else {
        for (size_t i = 0; i < n; i++)
            perm[i] = i;
    }
    size_t m = search_start_list(a, perm + n, mark);
    if (m) { /* the starts, then the rest without them */
        size_t k = n;
        for (size_t i = n; i-- > 0;)
            if (!mark[perm[i]])
                perm[--k] = perm[i];
        for (size_t i = 0; i < m; i++)
            perm[i] = perm[n + i];
    }
    s->count = n;
    free(mark);
    *state = s;
    return 0;
}

int search_list_next(void *state, size_t *index)
{
    SearchList *s = state;
    if (s->next >= s->count)
        return CUTUNE_NEXT_DONE;
    *index = s->order[s->next++];
    return CUTUNE_NEXT_READY;
}

void search_list_feedback(void *state, size_t index, CutuneStatus status, double median_ms)
{
    (void)state, (void)index, (void)status, (void)median_ms;
}
