"""Rule collect_live: one shard of conversations through a live model, via the response cache."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

import json

from eibench.predict.adapters import LiveModel
from eibench.predict.collect import collect_shard
from eibench.predict.conversation import conversation_views
from eibench.predict.settings import collection_settings, request_bounds
from eibench.predict.summary import collection_summary
from eibench.release.tidy import GOLD_TABLES
from eibench.runlog import rule_log
from eibench.seeding import stable_int
from eibench.tables import read_parquet, write_text

with rule_log(snakemake) as log:  # noqa: F821
    p = snakemake.params
    tables = {name: read_parquet(snakemake.input[name], GOLD_TABLES[name]) for name in GOLD_TABLES}
    ids = [c for c in sorted(tables["conversations"]["conversation_id"]) if stable_int(c) % p.n_shards == p.shard]
    # The configured limits are the model's; its jobs (shards x modes) may run at once, so each
    # gets an equal share of the concurrency and of the requests per minute.
    model = LiveModel.from_config(p.model, request_bounds(p.collection)).share(p.n_shards * p.n_modes)
    settings = collection_settings(p.collection)
    stats = collect_shard(
        conversation_views(tables, ids),
        model,
        p.mode,
        p.collection["panas_strategy"],
        p.collection["prompt_version"],
        p.collection["cache_dir"],
        f"{p.mode}-shard-{p.shard}",
        snakemake.output.predictions,
        seed=stable_int(f"{p.seed}/{model.name}/{p.mode}/{p.shard}"),
        show_progress=p.collection["show_progress"],
        lock_stale_seconds=settings["lock_stale_seconds"],
        lock_wait_seconds=settings["lock_wait_seconds"],
        record=p.model.get("record"),
    )
    log.info(
        "model %s, mode %s, shard %d/%d: %d conversations; %s",
        model.name,
        p.mode,
        p.shard,
        p.n_shards,
        len(ids),
        json.dumps(stats, sort_keys=True),
    )
    # Where the answers came from and what was invalid, for the paper (rule paper_numbers).
    write_text(json.dumps(collection_summary(stats), sort_keys=True, indent=1) + "\n", snakemake.output.summary)
