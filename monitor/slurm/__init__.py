"""SLURM: the job context (environment, scontrol, output file patterns) and the source that
follows the job's processes and files on this node."""
