/* The name of the recipe snapshot (srt/snapshot.hpp) in a job, defined once for all who read or
 * write it: the plugin's loader (C), its implementation, srt-helper snapshot and the launcher.
 * The submit side attaches it with spank_job_control_setenv(SRT_SNAPSHOT_NAME), and Slurm shows a
 * job-control variable to the job as SLURM_SPANK_<name> (spank(8), spank_job_control_setenv). */
#ifndef SRT_SNAPSHOT_ENV_H
#define SRT_SNAPSHOT_ENV_H

#define SRT_SNAPSHOT_NAME "SRT_SNAPSHOT"
#define SRT_SNAPSHOT_JOB_ENV "SLURM_SPANK_" SRT_SNAPSHOT_NAME

#endif
