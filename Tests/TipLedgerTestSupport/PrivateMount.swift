// SPDX-License-Identifier: GPL-3.0-or-later
internal import Foundation

/// A command run in a mount namespace of its own (`unshare(1)` with a user namespace, so no
/// privilege is needed where the kernel allows them), with a file system mounted for it alone:
/// a small tmpfs that fills up as a real disk does, or a directory bound read-only. The mounts
/// go away with the command, and no other process sees them.
///
/// The command's PID is the launcher's (unshare and sh `exec` it), so a test reaches the
/// command's mounts through `/proc/PID/root` (`path(_:inside:)`).
public enum PrivateMount {
    static let unshare = "/usr/bin/unshare"

    /// Whether this machine lets a test mount a tmpfs in a namespace of its own.
    public static let isAvailable: Bool = {
        guard FileManager.default.isExecutableFile(atPath: unshare) else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: unshare)
        process.arguments = namespace + ["/bin/sh", "-c", "mount -t tmpfs -o size=64k tmpfs /tmp"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    private static let namespace = [unshare, "--user", "--map-root-user", "--mount"]

    /// The command line that runs `command` with a tmpfs of `bytes` bytes mounted on
    /// `directory`, an existing directory.
    public static func tmpfs(at directory: String, bytes: Int, running command: [String]) -> [String] {
        namespace + ["/bin/sh", "-c", #"mount -t tmpfs -o size="$1" tmpfs "$0" && shift && exec "$@""#, directory]
            + [String(bytes)] + command
    }

    /// The command line that runs `command` with `directory` bound over itself read-only: what
    /// a read-only mount looks like, to root as well.
    public static func readOnly(_ directory: String, running command: [String]) -> [String] {
        namespace + [
            "/bin/sh", "-c", #"mount --bind "$0" "$0" && mount -o remount,ro,bind "$0" && exec "$@""#, directory,
        ] + command
    }

    /// Where the process `pid` (run by one of the command lines above) sees `path`, for the test
    /// to reach into its mounts.
    public static func path(_ path: String, inside pid: Int32) -> String {
        "/proc/\(pid)/root\(path)"
    }
}
