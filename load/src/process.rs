//! The server's process, found from its listening port, its resident memory and the CPU
//! time it has used, all read from Linux's `/proc`.

use std::fs;

/// The id of the process listening on TCP `port`, if this machine's `/proc` tells.
pub(crate) fn listening_pid(port: u16) -> Option<u32> {
    let sockets: Vec<String> = ["/proc/net/tcp", "/proc/net/tcp6"]
        .into_iter()
        .filter_map(|table| fs::read_to_string(table).ok())
        .flat_map(|table| listening_inodes(&table, port))
        .map(|inode| format!("socket:[{inode}]"))
        .collect();
    if sockets.is_empty() {
        return None;
    }
    fs::read_dir("/proc").ok()?.flatten().find_map(|entry| {
        let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
        let fds = fs::read_dir(entry.path().join("fd")).ok()?;
        fds.flatten()
            .filter_map(|fd| fs::read_link(fd.path()).ok())
            .any(|target| {
                target
                    .to_str()
                    .is_some_and(|t| sockets.iter().any(|s| s == t))
            })
            .then_some(pid)
    })
}

/// The inodes of the sockets of a `/proc/net/tcp` table that listen on `port`.
fn listening_inodes(table: &str, port: u16) -> Vec<u64> {
    const LISTEN: &str = "0A";
    table
        .lines()
        .skip(1)
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let local_port = fields.get(1)?.rsplit(':').next()?;
            let listening =
                u16::from_str_radix(local_port, 16).ok()? == port && *fields.get(3)? == LISTEN;
            listening.then(|| fields.get(9)?.parse().ok())?
        })
        .collect()
}

/// The resident memory of process `pid`, in bytes.
pub(crate) fn rss_bytes(pid: u32) -> Option<u64> {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Clock ticks a second in `/proc/PID/stat`: Linux counts CPU time there in `USER_HZ`,
/// which is 100 on every architecture it runs on here (`getconf CLK_TCK`).
const TICKS_PER_SECOND: u64 = 100;

/// The CPU time process `pid` has used so far, its user and system time together, in
/// seconds (to the hundredth).
pub(crate) fn cpu_seconds(pid: u32) -> Option<f64> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let ticks = cpu_ticks(&stat)?;
    Some(ticks as f64 / TICKS_PER_SECOND as f64)
}

/// `utime` plus `stime` of a `/proc/PID/stat` line, in clock ticks.
fn cpu_ticks(stat: &str) -> Option<u64> {
    // The command's name, in parentheses, comes second and may hold spaces and
    // parentheses of its own: the fields are counted from after its last `)`, where
    // the third field (the state) comes first, so `utime` and `stime` (the 14th and
    // 15th) are the 12th and 13th.
    let (_, rest) = stat.rsplit_once(')')?;
    let mut fields = rest.split_whitespace().skip(11);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some(utime + stime)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listening_socket_is_found_by_its_port() {
        let table = "\
  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4242 1 0000000000000000 100 0 0 10 0
   1: 0100007F:1F90 0100007F:9C40 01 00000000:00000000 00:00000000 00000000     0        0 4343 1 0000000000000000 20 4 30 10 -1
   2: 0100007F:0050 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4444 1 0000000000000000 100 0 0 10 0
";
        // 0x1F90 is 8080; the established connection on that port is not listening.
        assert_eq!(listening_inodes(table, 8080), vec![4242]);
        assert_eq!(listening_inodes(table, 80), vec![4444]);
        assert!(listening_inodes(table, 9999).is_empty());
    }

    #[test]
    fn cpu_time_is_user_and_system_time_after_the_name() {
        // A name with a space and a parenthesis of its own; utime 1234, stime 56.
        let stat = "4242 (punct (x) y) S 1 4242 4242 0 -1 4194560 9120 0 0 0 1234 56 \
                    0 0 20 0 9 0 1729 1185087488 4763 18446744073709551615 1 1 0 0 0 0 0 \
                    4096 17610 0 0 0 17 1 0 0 0 0 0";
        assert_eq!(cpu_ticks(stat), Some(1290));
        assert_eq!(cpu_ticks("4242 (cut short) S 1 2"), None);
        assert!(cpu_seconds(std::process::id()).is_some());
    }

    #[test]
    fn this_process_has_resident_memory() {
        assert!(rss_bytes(std::process::id()).is_some_and(|rss| rss > 0));
    }
}
