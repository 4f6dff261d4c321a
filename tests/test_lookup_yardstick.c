/* cutune_lookup_yardstick (cutune/lookup.h) on a hand-built database, no GPU needed: the
 * vendor time recorded for a size on this GPU (its newest), else on the other GPUs of its
 * model (the fastest of their newest; a same-named GPU with other SMs is another model),
 * never at another size, element type or layout; the op's size rules; a name never cut; and
 * the errors. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "db_fixture.h"
#include "cutune/lookup.h"
#include "db.h"
#include "tmpdir.h"
#include "util.h"

static CutuneDeviceInfo h100(const char *uuid, int sms)
{
    CutuneDeviceInfo d = fixture_device(uuid, "NVIDIA H100 80GB HBM3");
    d.sm_count = sms;
    d.total_mem = 85029158912ull;
    return d;
}

static CutuneDeviceInfo m1, m2, m3, other;

/* A yardstick of `name` at ms for (device, matmul at size), recorded after the earlier ones. */
static void add(CutuneDb *db, const CutuneDeviceInfo *d, const char *size, const char *name,
                double ms)
{
    CutuneError err = {0};
    CutuneProblem p;
    char canon[64];
    int64_t dev_id, prob_id;
    CHECK(cutune_problem_parse(size, &p, NULL) == 0);
    cutune_problem_format(&p, canon, sizeof canon);
    CHECK_MSG(cutune_db_device(db, d, &dev_id, &err) == 0, "%s", err.msg);
    CHECK_MSG(cutune_db_problem(db, "matmul", canon, &prob_id, &err) == 0, "%s", err.msg);
    CHECK_MSG(cutune_db_yardstick_add(db, 0, dev_id, prob_id, name, ms, 5, &err) == 0, "%s",
              err.msg);
}

static void build(const char *path)
{
    CutuneDb *db = NULL;
    CutuneError err = {0};
    CHECK_MSG(cutune_db_open(path, 0, &db, &err) == 0, "%s", err.msg);
    add(db, &m1, "1024x1024x1024", "cuBLAS SGEMM", 0.7);
    add(db, &m1, "1024x1024x1024", "cuBLASLt fp32", 0.8); /* newer: the answer */
    add(db, &m2, "2048x2048x2048", "old", 4.0);           /* m2's older, faster: not it */
    add(db, &m2, "2048x2048x2048", "cuBLASLt fp32", 5.0);
    add(db, &m3, "2048x2048x2048", "cuBLASLt fp32", 5.5);
    add(db, &other, "2048x2048x2048", "fewer SMs", 1.0); /* another model: never */
    add(db, &m1, "4096x1024x4096-bf16-nt", "cuBLASLt bf16", 0.0464);
    cutune_db_close(&db);
}

/* The time and name of a found yardstick, checked; -1 and "" when the call failed. */
static double ask(CutuneLookup *h, const CutuneDeviceInfo *d, const char *size, char *name,
                  size_t len, int want_rc)
{
    CutuneError err = {0};
    double ms = -1;
    int rc = cutune_lookup_yardstick(h, d, "matmul", size, &ms, name, len, &err);
    CHECK_MSG(rc == want_rc, "%s on %s: %d (%s), want %d", size, d->uuid, rc, err.msg, want_rc);
    return rc == 0 ? ms : -1;
}

int main(void)
{
    if (make_tmpdir(tmpdir, sizeof tmpdir, "cutune-yardstick") != 0)
        return 1;
    char path[160];
    snprintf(path, sizeof path, "%s/y.db", tmpdir);
    m1 = h100("GPU-y1", 132);
    m2 = h100("GPU-y2", 132);
    m3 = h100("GPU-y3", 132);
    other = h100("GPU-y4", 114);
    build(path);

    CutuneLookupSettings s;
    cutune_lookup_default_settings(&s);
    s.db_path = path;
    CutuneLookup *h = NULL;
    CutuneError err = {0};
    CHECK_MSG(cutune_open(&h, &s, &err) == 0, "%s", err.msg);
    char name[64];

    /* this GPU, this size, by the op's size rules ("1024" is 1024^3): the newest */
    CHECK(ask(h, &m1, "1024", name, sizeof name, 0) == 0.8);
    CHECK_MSG(strcmp(name, "cuBLASLt fp32") == 0, "%s", name);
    /* none here: its model's GPUs at this size, each's newest, the fastest of them */
    CHECK(ask(h, &m1, "2048x2048x2048", name, sizeof name, 0) == 5.0);
    CHECK_MSG(strcmp(name, "cuBLASLt fp32") == 0, "%s", name);
    CutuneDeviceInfo by_uuid = fixture_device("GPU-y1", ""); /* its model from the database */
    by_uuid.cc_major = 0;
    CHECK(ask(h, &by_uuid, "2048", name, sizeof name, 0) == 5.0);
    CutuneDeviceInfo model = m1; /* the model itself, as cutune_device_find gives a name */
    model.uuid[0] = '\0';
    CHECK(ask(h, &model, "2048", name, sizeof name, 0) == 5.0);
    CHECK(ask(h, &model, "1024", name, sizeof name, 0) == 0.8);
    /* the same-named GPU with fewer SMs answers only for itself */
    CHECK(ask(h, &other, "2048", name, sizeof name, 0) == 1.0);
    CHECK_MSG(strcmp(name, "fewer SMs") == 0, "%s", name);
    CHECK(ask(h, &other, "1024", name, sizeof name, CUTUNE_ERR_NOT_FOUND) == -1);
    CHECK(name[0] == '\0');

    /* only its element type and layout, never another size */
    CHECK(ask(h, &m1, "4096x1024x4096-bf16-nt", name, sizeof name, 0) == 0.0464);
    CHECK_MSG(strcmp(name, "cuBLASLt bf16") == 0, "%s", name);
    CHECK(ask(h, &m1, "4096x1024x4096", name, sizeof name, CUTUNE_ERR_NOT_FOUND) == -1);
    CHECK(ask(h, &m1, "4096x1024x4096-fp16-nt", name, sizeof name, CUTUNE_ERR_NOT_FOUND) == -1);
    cutune_error_clear(&err);
    double ms = -1;
    CHECK_EQ_INT(cutune_lookup_yardstick(h, &m1, "matmul", "1000", &ms, NULL, 0, &err),
                 CUTUNE_ERR_NOT_FOUND);
    CHECK(ms == 0);
    CHECK_STR_CONTAINS(err.msg, "y.db");
    CHECK_STR_CONTAINS(err.msg, "no vendor yardstick recorded for matmul 1000x1000x1000");
    CHECK_STR_CONTAINS(err.msg, "cutune run matmul --size 1000x1000x1000");

    /* the name: optional, and never cut */
    CHECK_EQ_INT(cutune_lookup_yardstick(h, &m1, "matmul", "1024", &ms, NULL, 0, NULL), 0);
    CHECK_EQ_INT(cutune_lookup_yardstick(h, &m1, "matmul", "1024", &ms, NULL, 9, NULL), 0);
    CHECK(ms == 0.8);
    CHECK(ask(h, &m1, "1024", name, strlen("cuBLASLt fp32") + 1, 0) == 0.8);
    cutune_error_clear(&err);
    CHECK_EQ_INT(cutune_lookup_yardstick(h, &m1, "matmul", "1024", &ms, name, 8, &err),
                 CUTUNE_ERR_RANGE);
    CHECK_STR_CONTAINS(err.msg, "never cut");

    /* bad arguments */
    CHECK_EQ_INT(cutune_lookup_yardstick(h, NULL, "matmul", "1024", &ms, NULL, 0, NULL),
                 CUTUNE_ERR_INVALID);
    CHECK_EQ_INT(cutune_lookup_yardstick(h, &m1, "matmul", "1024", NULL, NULL, 0, NULL),
                 CUTUNE_ERR_INVALID);
    CHECK_EQ_INT(cutune_lookup_yardstick(h, &m1, "matmul", "12x", &ms, NULL, 0, NULL),
                 CUTUNE_ERR_PARSE);
    CutuneDeviceInfo nobody = fixture_device("", "NVIDIA H100 80GB HBM3"); /* no SMs, memory */
    cutune_error_clear(&err);
    CHECK_EQ_INT(cutune_lookup_yardstick(h, &nobody, "matmul", "1024", &ms, NULL, 0, &err),
                 CUTUNE_ERR_INVALID);
    CHECK_STR_CONTAINS(err.msg, "UUID");
    cutune_close(&h);
    rm_tree(tmpdir);
    return check_result("lookup_yardstick");
}
