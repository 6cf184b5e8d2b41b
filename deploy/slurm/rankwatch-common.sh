# Shared by prolog.sh and epilog.sh (sourced, never run). POSIX sh.
# shellcheck shell=sh disable=SC2034  # the settings are read by the scripts that source this
#
# Settings are shell variables with the defaults below. An admin overrides them in a root-owned
# shell fragment, looked up in this order:
#   1. $RANKWATCH_DEPLOY_CONF (for tests and unusual layouts),
#   2. rankwatch-slurm.conf next to slurm.conf ($SLURM_CONF is set for Prolog and Epilog),
#   3. /etc/default/rankwatch-slurm.

rankwatch_bin=rankwatch          # looked up on PATH unless absolute
rankwatch_config=                # TOML file passed as --config (empty: none)
run_dir=/run/rankwatch           # pid files and systemd environment files
state_dir=/var/lib/rankwatch     # one sub-directory per job: dumps, alert spool
log_dir=/var/log/rankwatch       # the daemon's own output, one file per job
log_keep_days=14                 # the epilog deletes older daemon logs
file_sd_dir=                     # Prometheus file_sd directory (empty: do not register)
metrics_bind=0.0.0.0             # address the metrics endpoint listens on
metrics_host=                    # host name Prometheus scrapes (empty: this host's name)
metrics_port_base=9824           # port = base + job id % span (span 1: a fixed port,
metrics_port_span=1              #   larger when jobs share nodes)
launcher=auto                    # auto | setsid | systemd
systemd_unit=rankwatch@          # template unit, instance = job id
stop_timeout_seconds=10          # epilog: SIGTERM, wait this long, then SIGKILL (more than
                                 #   the daemon's general.shutdown_grace_seconds, 5)
syslog_tag=rankwatch-slurm

rw_load_config() {
    rw_conf="${RANKWATCH_DEPLOY_CONF:-}"
    if [ -z "$rw_conf" ] && [ -n "${SLURM_CONF:-}" ]; then
        rw_conf="$(dirname "$SLURM_CONF")/rankwatch-slurm.conf"
        [ -f "$rw_conf" ] || rw_conf=
    fi
    [ -n "$rw_conf" ] || rw_conf=/etc/default/rankwatch-slurm
    if [ -f "$rw_conf" ]; then
        # shellcheck disable=SC1090  # the admin's fragment
        . "$rw_conf"
    fi
    unset RANKWATCH_DEPLOY_CONF  # never handed to the daemon (it rejects unknown RANKWATCH_*)
    rw_job="${SLURM_JOB_ID:-}"
    rw_node="${SLURMD_NODENAME:-$(hostname -s 2>/dev/null)}"
    rw_pidfile="$run_dir/rankwatch-$rw_job.pid"
    rw_envfile="$run_dir/rankwatch-$rw_job.env"
    rw_sdfile="$file_sd_dir/rankwatch-$rw_job-$rw_node.json"
    rw_unit="$systemd_unit$rw_job.service"
}

# Syslog plus a plain file (syslog may be absent on minimal nodes); never fails.
rw_log() {
    logger -t "$syslog_tag" -- "job=$rw_job node=$rw_node $*" 2>/dev/null
    if [ -d "$log_dir" ]; then
        printf '%s %s job=%s node=%s %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
            "${SLURM_SCRIPT_CONTEXT:-script}" "$rw_job" "$rw_node" "$*" \
            >>"$log_dir/slurm-scripts.log" 2>/dev/null
    fi
    return 0
}

# A job id is used in file names: digits only.
rw_valid_job() {
    case "$rw_job" in
        '' | *[!0-9]*) return 1 ;;
    esac
    return 0
}

rw_use_systemd() {
    case "$launcher" in
        systemd) return 0 ;;
        setsid) return 1 ;;
    esac
    [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1
}

# True when PID is our sidecar for this job: alive, not a zombie, and its command line holds
# `--slurm-job <id>` (a reused PID belongs to some other program).
rw_is_our_sidecar() {
    rw_pid="$1"
    case "$rw_pid" in
        '' | *[!0-9]*) return 1 ;;
    esac
    [ -r "/proc/$rw_pid/cmdline" ] || return 1
    rw_alive "$rw_pid" || return 1
    tr '\000' '\n' <"/proc/$rw_pid/cmdline" 2>/dev/null | awk -v job="$rw_job" '
        prev == "--slurm-job" && $0 == job { found = 1 }
        $0 == "--slurm-job=" job { found = 1 }
        { prev = $0 }
        END { exit found ? 0 : 1 }'
}

# Alive means the process exists and is not a zombie (an orphan may stay a zombie until its
# new parent reaps it, and `kill -0` would still succeed).
rw_alive() {
    [ -r "/proc/$1/stat" ] || return 1
    rw_state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
    [ -n "$rw_state" ] && [ "$rw_state" != Z ] && [ "$rw_state" != X ]
}

rw_json_string() {
    printf '"%s"' "$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g')"
}
