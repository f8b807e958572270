// SPDX-License-Identifier: GPL-3.0-or-later
import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A program run as a child of the test process with `posix_spawn(3)`, as Foundation's
/// `Process` runs one (in a process group of its own, with no descriptor of the test process
/// but its standard streams) and with SIGPIPE at its default, without `Process.run()`: in Swift 6.3.1 that copies a whole
/// `dirent` past the end of glibc's `readdir` buffer while it scans /proc/self/fd, and with
/// many descriptors open, as a test suite running in parallel has, it now and then crashes the
/// test process (swift-corelibs-foundation pull request 5472).
public final class ChildProcess: Sendable {
    public let processIdentifier: Int32
    private let ending = Ending()

    /// The exit status, or the signal that ended the child, once it ended.
    private final class Ending: Sendable {
        let result = Mutex<(status: Int32, signaled: Bool)?>(nil)
        let signal = DispatchSemaphore(value: 0)
    }

    /// Why a child could not be started.
    public struct SpawnError: Error, CustomStringConvertible {
        public let executable: String
        public let code: Int32
        public var description: String { "cannot start \(executable): \(String(cString: strerror(code)))" }
    }

    /// Starts `executable` with `arguments` (after the executable itself) and exactly
    /// `environment`, in `directory`, its standard input, output and error on these descriptors
    /// of the test process (which keeps and closes its own).
    public init(
        executable: String, arguments: [String], environment: [String: String], directory: String? = nil,
        standardInput: Int32, standardOutput: Int32, standardError: Int32
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (descriptor, stream) in [(standardInput, 0), (standardOutput, 1), (standardError, 2)] {
            posix_spawn_file_actions_adddup2(&actions, descriptor, Int32(stream))
        }
        // Every other descriptor stays out of the child: one holding the write end of another
        // test's pipe would keep that test from seeing its end.
        var failure = Self.addCloseFrom(&actions, 3)
        if failure == 0, let directory { failure = Self.addChdir(&actions, directory) }
        guard failure == 0 else { throw SpawnError(executable: executable, code: failure) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // SIGPIPE at its default, as a shell starts a program, whatever the test process does
        // with it: a child must handle a reader that went away itself.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var spawnedIdentifier = pid_t()
        let spawned = posix_spawn(&spawnedIdentifier, executable, &actions, &attributes, argv, envp)
        guard spawned == 0 else { throw SpawnError(executable: executable, code: spawned) }
        let pid = spawnedIdentifier
        processIdentifier = pid

        // Reaped on a thread of its own, so that waiting with a deadline needs no polling.
        let ending = ending
        Thread {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            // WIFSIGNALED and WTERMSIG are macros: the low seven bits are the signal, 0 for exit.
            let signal = status & 0x7f
            ending.result.withLock { $0 = signal == 0 ? ((status >> 8) & 0xff, false) : (signal, true) }
            ending.signal.signal()
        }.start()
    }

    /// Waits at most `timeout` (for ever when nil) for the child to end: its exit status, or
    /// the signal that ended it; nil while it runs.
    public func waitForExit(timeout: Duration? = nil) -> (status: Int32, signaled: Bool)? {
        if let result = ending.result.withLock({ $0 }) { return result }
        let deadline: DispatchTime
        if let timeout {
            let (seconds, attoseconds) = timeout.components
            deadline = .now() + .nanoseconds(Int(max(0, seconds)) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        } else {
            deadline = .distantFuture
        }
        guard ending.signal.wait(timeout: deadline) == .success else { return nil }
        ending.signal.signal()
        return ending.result.withLock { $0 }
    }

    /// Sends `signal` to the child.
    public func send(_ signal: Int32) {
        kill(processIdentifier, signal)
    }

    // glibc has both since 2.34 but declares them only for _GNU_SOURCE, which Swift's Glibc
    // module is built without: found at run time, as Foundation finds its own.
    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias Chdir =
        @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    private static let closeFrom = unsafeBitCast(
        dlsym(nil, "posix_spawn_file_actions_addclosefrom_np")!, to: CloseFrom.self)
    private static let chdir = unsafeBitCast(dlsym(nil, "posix_spawn_file_actions_addchdir_np")!, to: Chdir.self)

    private static func addCloseFrom(_ actions: inout posix_spawn_file_actions_t, _ lowest: Int32) -> Int32 {
        closeFrom(&actions, lowest)
    }

    private static func addChdir(_ actions: inout posix_spawn_file_actions_t, _ directory: String) -> Int32 {
        directory.withCString { chdir(&actions, $0) }
    }
}
