"""Processes as /proc shows them: the resident memory and CPU time of one, and the children of
one (cluster mode's workers), for tests and benchmarks that measure Ember's memory."""

import os


def _status_mb(pid, key: str) -> int:
    """A memory line (`VmRSS`, `VmHWM`) of /proc/PID/status in MiB (0 once it has exited)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) // 1024
    except OSError:
        pass
    return 0


def rss_mb(pid) -> int:
    """The resident set size of `pid` in MiB (0 once it has exited)."""
    return _status_mb(pid, "VmRSS")


def peak_rss_mb(pid) -> int:
    """The peak resident set size (VmHWM) of `pid` in MiB (0 once it has exited)."""
    return _status_mb(pid, "VmHWM")


def _stat_fields(pid):
    """The fields of /proc/PID/stat after the command name (which is in parentheses and may
    hold spaces), or None once the process has exited."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except OSError:
        return None
    return stat[stat.rindex(")") + 2 :].split()


def cpu_seconds(pid) -> float:
    """User and system CPU time `pid` has used, in seconds (0 once it has exited)."""
    fields = _stat_fields(pid)
    if fields is None:
        return 0.0
    # utime and stime are fields 14 and 15 of stat, 12 and 13 after the name.
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children(pid):
    """Direct child processes of `pid`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        fields = _stat_fields(entry)
        if fields is not None and int(fields[1]) == pid:
            found.append(int(entry))
    return found
