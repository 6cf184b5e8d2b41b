#!/bin/sh
# SLURM Epilog (slurm.conf: Epilog=/etc/slurm/rankwatch/epilog.sh). Runs as root under slurmd
# on every node when the job's allocation ends, also on nodes where the Prolog never ran.
# Stops this job's sidecar and removes its Prometheus registration.
#
# Slurm does not stop a process the Prolog detached: without this script the sidecar would
# outlive the job. The pid file is trusted only after /proc/PID/cmdline shows the sidecar of
# this very job (PIDs are reused). SIGTERM lets it resolve its alerts and flush its sinks;
# SIGKILL follows after stop_timeout_seconds.
#
# Always exits 0: a failing Epilog drains the node.

trap 'exit 0' EXIT
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# shellcheck source-path=SCRIPTDIR source=rankwatch-common.sh
. "$(dirname "$0")/rankwatch-common.sh" || exit 0
rw_load_config

if ! rw_valid_job; then
    rw_log "epilog: no usable SLURM_JOB_ID ('$rw_job'); nothing to stop"
    exit 0
fi

rw_stop_pid() {
    rw_target="$1"
    kill -TERM "$rw_target" 2>/dev/null
    rw_ticks=$((stop_timeout_seconds * 10))
    rw_i=0
    while rw_alive "$rw_target" && [ $rw_i -lt $rw_ticks ]; do
        sleep 0.1
        rw_i=$((rw_i + 1))
    done
    if rw_alive "$rw_target"; then
        kill -KILL "$rw_target" 2>/dev/null
        rw_log "epilog: sidecar pid $rw_target ignored SIGTERM for ${stop_timeout_seconds}s; sent SIGKILL"
    else
        rw_log "epilog: sidecar pid $rw_target stopped"
    fi
}

if [ -f "$rw_envfile" ] && rw_use_systemd; then
    if timeout $((stop_timeout_seconds + 10)) systemctl stop "$rw_unit" >/dev/null 2>&1; then
        rw_log "epilog: stopped $rw_unit"
    else
        rw_log "epilog: systemctl stop $rw_unit failed"
    fi
elif [ -f "$rw_pidfile" ]; then
    rw_pid=$(head -c 32 "$rw_pidfile" 2>/dev/null)
    if rw_is_our_sidecar "$rw_pid"; then
        rw_stop_pid "$rw_pid"
    else
        rw_log "epilog: pid file names '$rw_pid', which is not this job's sidecar; left alone"
    fi
else
    rw_log "epilog: no sidecar was started on this node"
fi

rm -f "$rw_pidfile" "$rw_envfile" 2>/dev/null
[ -n "$file_sd_dir" ] && rm -f "$rw_sdfile" 2>/dev/null
rmdir "$state_dir/$rw_job" 2>/dev/null  # kept when the sidecar left dumps or a spool behind
if [ -d "$log_dir" ] && [ "$log_keep_days" -gt 0 ] 2>/dev/null; then
    find "$log_dir" -maxdepth 1 -name 'rankwatch-*.log' -mtime +"$log_keep_days" -delete 2>/dev/null
fi
exit 0
