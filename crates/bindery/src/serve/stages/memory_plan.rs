//! How a process's memory is split between what clients can make a server hold: half for the
//! application, an eighth (at most 256 MiB) for answer bodies on the heap (the byte budget of
//! decompressed and copied bodies, budget.rs), the rest for connections (the default cap,
//! `server/limits.rs`). The limit is the smallest of the cgroup's (v1 or v2) and the machine's.

use std::sync::OnceLock;

/// The most the default byte budget of heap bodies grows to, whatever the memory: 256 MiB.
pub(crate) const MAX_DEFAULT_HEAP_BUDGET: u64 = 256 << 20;

/// The default byte budget of heap bodies for a memory limit: an eighth of it, at most
/// [`MAX_DEFAULT_HEAP_BUDGET`] (and that much where no limit can be read).
pub(crate) fn heap_budget_for(memory: Option<u64>) -> u64 {
    memory.map_or(MAX_DEFAULT_HEAP_BUDGET, |memory| {
        (memory / 8).min(MAX_DEFAULT_HEAP_BUDGET)
    })
}

#[cfg_attr(not(feature = "server"), allow(dead_code))]
/// The bytes the default connection cap may spend for a memory limit: half of it, less the
/// heap bodies' budget.
pub(crate) fn connection_bytes_for(memory: u64) -> u64 {
    (memory / 2).saturating_sub(heap_budget_for(Some(memory)))
}

/// The memory limit in force, read once.
pub(crate) fn memory_limit_once() -> Option<u64> {
    static LIMIT: OnceLock<Option<u64>> = OnceLock::new();
    *LIMIT.get_or_init(memory_limit)
}

/// The memory this process may use: the smallest of its cgroup's limits (v2 `memory.max`, v1
/// `memory.limit_in_bytes`, the groups above included) and the machine's memory; `None` where
/// none can be read.
pub(crate) fn memory_limit() -> Option<u64> {
    let cgroups = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    let physical = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|meminfo| physical_memory(&meminfo));
    cgroup_limits(&cgroups, &|path| std::fs::read_to_string(path).ok())
        .into_iter()
        .chain(physical)
        .min()
}

/// `MemTotal` of `/proc/meminfo`, in bytes.
fn physical_memory(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|line| line.starts_with("MemTotal:"))?;
    let kilobytes: u64 = line
        .trim_start_matches("MemTotal:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    kilobytes.checked_mul(1024)
}

/// The memory limits of the groups named by `/proc/self/cgroup` and of every group above them,
/// read with `read` (v2 under `/sys/fs/cgroup` or `/sys/fs/cgroup/unified`, v1 under
/// `/sys/fs/cgroup/memory`); "max" and v1's huge "no limit" numbers are no limit.
fn cgroup_limits(cgroups: &str, read: &dyn Fn(&str) -> Option<String>) -> Vec<u64> {
    let mut limits = Vec::new();
    for line in cgroups.lines() {
        let mut fields = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) =
            (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        let files: &[&str] = match controllers {
            "" => &[
                "/sys/fs/cgroup{}/memory.max",
                "/sys/fs/cgroup/unified{}/memory.max",
            ],
            list if list.split(',').any(|name| name == "memory") => {
                &["/sys/fs/cgroup/memory{}/memory.limit_in_bytes"]
            }
            _ => continue,
        };
        let mut group = path.trim_end_matches('/').to_owned();
        loop {
            for file in files {
                let limit = read(&file.replace("{}", &group))
                    .and_then(|text| text.trim().parse::<u64>().ok())
                    .filter(|limit| *limit < (1 << 60));
                limits.extend(limit);
            }
            match group.rfind('/') {
                Some(parent) => group.truncate(parent),
                None => break,
            }
        }
    }
    limits
}

#[cfg(test)]
mod tests {
    use super::{cgroup_limits, connection_bytes_for, heap_budget_for, physical_memory};

    #[test]
    fn the_memory_is_split_between_the_application_bodies_and_connections() {
        let mib = 1u64 << 20;
        assert_eq!(heap_budget_for(Some(256 * mib)), 32 * mib);
        assert_eq!(connection_bytes_for(256 * mib), 96 * mib);
        assert_eq!(
            heap_budget_for(Some(24 << 30)),
            256 * mib,
            "at most 256 MiB"
        );
        assert_eq!(heap_budget_for(None), 256 * mib);
        assert_eq!(connection_bytes_for(24 << 30), (12 << 30) - 256 * mib);
    }

    #[test]
    fn memory_limits_come_from_every_cgroup_version_and_the_groups_above() {
        let files = |path: &str| {
            match path {
                "/sys/fs/cgroup/memory/a/b/memory.limit_in_bytes" => Some("9223372036854771712\n"),
                "/sys/fs/cgroup/memory/a/memory.limit_in_bytes" => Some("1073741824\n"),
                "/sys/fs/cgroup/unified/svc/memory.max" => Some("max\n"),
                "/sys/fs/cgroup/memory.max" => Some("536870912\n"),
                _ => None,
            }
            .map(str::to_owned)
        };
        assert_eq!(
            cgroup_limits("4:memory:/a/b\n0::/svc\n2:cpu:/x\n", &files),
            [1 << 30, 512 << 20]
        );
        assert_eq!(cgroup_limits("4:memory:/\n", &files), Vec::<u64>::new());
        assert_eq!(
            physical_memory("MemTotal:       24562100 kB\nMemFree: 1 kB\n"),
            Some(24_562_100 * 1024)
        );
    }
}
