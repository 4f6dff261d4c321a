-- Migration 0005: GPU models. Results are kept per physical GPU (devices.uuid), but a fleet
-- of identical GPUs shares them: two GPUs are the same model when their name, compute
-- capability, SM count and memory size are equal (the columns 0001 already had). The model
-- is worked out by the view below, never stored, so that a merge, which copies devices by
-- UUID, needs nothing more to put GPUs of one model together. A device whose SM count or
-- memory is unknown (0) is its own model: a name and compute capability alone do not tell
-- an H100 PCIe from an H100 SXM with a different number of SMs.

-- Peak clocks in kHz (cudaDevAttrClockRate, cudaDevAttrMemoryClockRate), for display: they
-- do not decide the model (a clock can be locked per GPU). NULL: not known (a device
-- recorded before this migration, or imported).
ALTER TABLE devices ADD COLUMN sm_clock_khz INTEGER;
ALTER TABLE devices ADD COLUMN mem_clock_khz INTEGER;

CREATE INDEX devices_by_model ON devices (name, cc_major, cc_minor, sm_count, total_mem);

-- SELECT * FROM device_models;   every device with the model it belongs to: model_id is the
-- smallest devices.id of its model, gpus the number of GPUs of that model in this database
CREATE VIEW device_models AS
SELECT d.id AS device_id, d.uuid AS device_uuid, d.name AS name, d.cc_major AS cc_major,
       d.cc_minor AS cc_minor, d.sm_count AS sm_count, d.total_mem AS total_mem,
       d.sm_clock_khz AS sm_clock_khz, d.mem_clock_khz AS mem_clock_khz,
       CASE WHEN d.sm_count > 0 AND d.total_mem > 0 THEN
           (SELECT min(m.id) FROM devices m
            WHERE m.name = d.name AND m.cc_major = d.cc_major AND m.cc_minor = d.cc_minor
              AND m.sm_count = d.sm_count AND m.total_mem = d.total_mem)
       ELSE d.id END AS model_id,
       CASE WHEN d.sm_count > 0 AND d.total_mem > 0 THEN
           (SELECT count(*) FROM devices m
            WHERE m.name = d.name AND m.cc_major = d.cc_major AND m.cc_minor = d.cc_minor
              AND m.sm_count = d.sm_count AND m.total_mem = d.total_mem)
       ELSE 1 END AS gpus
FROM devices d;

-- SELECT * FROM model_best_configs WHERE op = 'matmul';   the best config per (model, op,
-- size): the fastest of the per-GPU bests of the model's GPUs. `best` holds only trials that
-- cutune checked on their GPU (0004), so this is the fastest checked trial over all of them;
-- device_uuid says on which GPU it was measured.
CREATE VIEW model_best_configs AS
SELECT m.model_id AS model_id, m.name AS device, m.sm_count AS sm_count,
       m.total_mem AS total_mem, d.uuid AS device_uuid, p.op AS op, p.size AS size,
       v.name AS variant, v.version AS variant_version, t.config AS config,
       t.median_ms AS median_ms, t.gflops AS gflops, t.gbps AS gbps, b.updated_at AS updated_at
FROM best b
JOIN device_models m ON m.device_id = b.device_id
JOIN devices d ON d.id = b.device_id
JOIN problems p ON p.id = b.problem_id
JOIN trials t ON t.id = b.trial_id
JOIN variants v ON v.id = t.variant_id
WHERE NOT EXISTS (
    SELECT 1 FROM best b2
    JOIN device_models m2 ON m2.device_id = b2.device_id
    JOIN trials t2 ON t2.id = b2.trial_id
    WHERE m2.model_id = m.model_id AND b2.problem_id = b.problem_id
      AND (t2.median_ms < t.median_ms OR (t2.median_ms = t.median_ms AND t2.id < t.id)));
