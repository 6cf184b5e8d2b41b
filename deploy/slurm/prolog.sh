#!/bin/sh
# SLURM Prolog (slurm.conf: Prolog=/etc/slurm/rankwatch/prolog.sh). Runs as root under slurmd
# on every node of the job. Starts `rankwatch run --slurm-job $SLURM_JOB_ID` fully detached,
# registers the node's metrics endpoint for Prometheus, and returns at once.
#
# Why detached this way: slurmd runs this script in its own process group, reads its stdout
# and stderr until EOF, and kills the group once the script exits. A child that stays in the
# group is killed (`nohup cmd &`); a child that keeps the pipe open holds the job back until
# PrologEpilogTimeout (`cmd &`). `setsid -f` with all three fds redirected avoids both; on
# systemd hosts the sidecar runs as a transient instance of a template unit instead.
#
# Always exits 0: a failing Prolog drains the node and requeues the job.

trap 'exit 0' EXIT
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
umask 022

# shellcheck source-path=SCRIPTDIR source=rankwatch-common.sh
. "$(dirname "$0")/rankwatch-common.sh" || exit 0
rw_load_config

if ! rw_valid_job; then
    rw_log "prolog: no usable SLURM_JOB_ID ('$rw_job'); nothing started"
    exit 0
fi

mkdir -p "$run_dir" "$log_dir" "$state_dir/$rw_job" 2>/dev/null
chmod 0755 "$run_dir" 2>/dev/null

rw_port=$((metrics_port_base + rw_job % metrics_port_span))
[ -n "$metrics_host" ] || metrics_host=$(hostname)  # no DNS lookup in a Prolog

# Prometheus learns about this node whether or not the sidecar starts: a target that does not
# answer is exactly what the RankwatchSidecarDown alert is for.
rw_register() {
    [ -n "$file_sd_dir" ] || return 0
    mkdir -p "$file_sd_dir" 2>/dev/null
    rw_tmp="$file_sd_dir/.rankwatch-$rw_job-$rw_node.json.tmp"
    {
        printf '[{"targets": [%s], "labels": {' "$(rw_json_string "$metrics_host:$rw_port")"
        printf '"job_id": %s, ' "$(rw_json_string "$rw_job")"
        printf '"user": %s, ' "$(rw_json_string "${SLURM_JOB_USER:-}")"
        printf '"node": %s}}]\n' "$(rw_json_string "$rw_node")"
    } >"$rw_tmp" 2>/dev/null
    if ! { chmod 0644 "$rw_tmp" && mv -f "$rw_tmp" "$rw_sdfile"; } 2>/dev/null; then
        rw_log "prolog: cannot write file_sd registration $rw_sdfile"
        rm -f "$rw_tmp" 2>/dev/null
    fi
}

rw_start_setsid() {
    if [ -f "$rw_pidfile" ] && rw_is_our_sidecar "$(cat "$rw_pidfile" 2>/dev/null)"; then
        rw_log "prolog: sidecar already running (pid $(cat "$rw_pidfile"))"
        return 0
    fi
    rm -f "$rw_pidfile"
    set -- run --slurm-job "$rw_job"
    [ -n "$rankwatch_config" ] && set -- "$@" --config "$rankwatch_config"
    # The inner shell records its own PID and then execs the sidecar, so the pid file holds
    # the sidecar's PID; setsid -f makes it a session leader outside slurmd's process group.
    (
        cd "$state_dir/$rw_job" 2>/dev/null || cd /
        # shellcheck disable=SC2016  # $$ and $1 belong to the inner shell
        setsid -f env RANKWATCH_METRICS_ADDR="$metrics_bind:$rw_port" \
            RANKWATCH_STATE_DIR="$state_dir/$rw_job" \
            /bin/sh -c 'echo $$ >"$1.tmp" && mv -f "$1.tmp" "$1"; shift; exec "$@"' \
            rankwatch-launch "$rw_pidfile" "$rw_exe" "$@" \
            </dev/null >>"$log_dir/rankwatch-$rw_job.log" 2>&1
    )
    # Wait briefly for the pid file so that the epilog can always find the sidecar.
    rw_i=0
    while [ ! -s "$rw_pidfile" ] && [ $rw_i -lt 50 ]; do
        sleep 0.01
        rw_i=$((rw_i + 1))
    done
    if [ -s "$rw_pidfile" ]; then
        rw_log "prolog: started sidecar pid $(cat "$rw_pidfile") metrics $metrics_bind:$rw_port"
    else
        rw_log "prolog: sidecar did not write its pid file $rw_pidfile"
    fi
}

rw_env_line() {
    # systemd EnvironmentFile syntax: KEY="value" with \ and " escaped; no newlines allowed.
    case "$2" in
        *'
'*) return 0 ;;
    esac
    printf '%s="%s"\n' "$1" "$(printf '%s' "$2" | sed 's/\\/\\\\/g; s/"/\\"/g')"
}

rw_start_systemd() {
    (
        umask 077  # the job's environment is nobody else's business
        {
            env | sed -n 's/^\(SLURM[A-Z_]*\)=.*/\1/p' | while read -r rw_var; do
                eval "rw_env_line \"\$rw_var\" \"\${$rw_var}\""
            done
            rw_env_line RANKWATCH_METRICS_ADDR "$metrics_bind:$rw_port"
            rw_env_line RANKWATCH_STATE_DIR "$state_dir/$rw_job"
            # expanded into ExecStart's arguments by the unit (not a RANKWATCH_* setting)
            if [ -n "$rankwatch_config" ]; then
                rw_env_line RW_EXTRA_ARGS "--config $rankwatch_config"
            fi
        } >"$rw_envfile.tmp" 2>/dev/null && mv -f "$rw_envfile.tmp" "$rw_envfile"
    )
    if systemctl start --no-block "$rw_unit" >/dev/null 2>&1; then
        rw_log "prolog: started $rw_unit metrics $metrics_bind:$rw_port"
    else
        rw_log "prolog: systemctl start $rw_unit failed"
    fi
}

rw_exe=$(command -v "$rankwatch_bin" 2>/dev/null)
if [ -z "$rw_exe" ] || [ ! -x "$rw_exe" ]; then
    rw_log "prolog: rankwatch executable '$rankwatch_bin' not found; sidecar not started"
elif rw_use_systemd; then
    rw_start_systemd
else
    rw_start_setsid
fi
rw_register
exit 0
