# shellcheck shell=bash
# shellcheck disable=SC2154  # helper, work and src are the caller's
# Sourced by the helper tests that run `srt-helper launch` without Slurm (launch_hostile_json_test,
# planted_files_test): a two-node profile with no daemons behind it and the batch step's
# environment as the plugin attaches it at submit. The caller sets helper, work and src.

# fake_job_setup NAME: $work/cluster.yaml (cluster NAME, results under $work/results) and the
# variables profile, recipe (the 1P1D lab twin) and nodelist.
fake_job_setup() {
  mkdir -p "$work/results"
  profile="$work/cluster.yaml"
  # node_sharing: shared: no slurmctld here to ask whether the job has its nodes to itself.
  cat > "$profile" <<YAML
cluster: $1
node_sharing: shared
gpus_per_node: 8
container_runtime: none
results_root: $work/results
node_addresses:
  node1: 10.0.0.1
  node2: 10.0.0.2
YAML
  recipe="$src/recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml"
  nodelist='node[1-2]'
}

# job_env JOBID: the environment of the job's batch step (what the plugin attaches at submit).
job_env() {
  local jid=$1 digest snapshot
  digest=$("$helper" plan "$recipe" --profile "$profile" --nodelist "$nodelist" --job-id "$jid" --json |
    /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["digest"])')
  snapshot=$("$helper" snapshot "$recipe" --profile "$profile")
  echo "SLURM_JOB_ID=$jid" "SLURM_JOB_NODELIST=$nodelist" "SLURM_SPANK_SRT_SNAPSHOT=$snapshot" "SRT_PLAN_DIGEST=$digest"
}
