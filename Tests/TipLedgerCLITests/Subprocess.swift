// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TipLedgerTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A program run as a subprocess with pipes for its standard input, output and error, an
/// explicit environment and a working directory.
///
/// The pipes are served with `poll(2)` on a thread of its own, so a child that writes a lot
/// never blocks on a full pipe, and waiting never holds a Swift concurrency thread.
struct Subprocess: Sendable {
    /// What the child reads on standard input.
    enum Input: Sendable {
        /// `/dev/null`.
        case none
        /// These bytes, then end of input.
        case bytes(Data)
        /// The file at this path.
        case file(String)

        /// Text as UTF-8 bytes.
        static func text(_ text: String) -> Input { .bytes(Data(text.utf8)) }
    }

    let executable: String
    let arguments: [String]
    let environment: [String: String]
    let directory: String
    var input: Input = .none

    /// Variables passed to every child: enough to find programs and a temporary directory, and
    /// never a `TIPLEDGER_*` setting of the shell that started the tests.
    static func baseEnvironment() -> [String: String] {
        let inherited = ProcessInfo.processInfo.environment
        var environment = ["PATH": inherited["PATH"] ?? "/usr/local/bin:/usr/bin:/bin", "LC_ALL": "C.UTF-8"]
        for name in ["HOME", "TMPDIR"] { environment[name] = inherited[name] }
        return environment
    }

    /// Runs the program to the end.
    ///
    /// `killWhen`, if given, is called with the number of newlines read from standard output
    /// so far each time more arrives; when it returns true the child gets `SIGKILL`, and what
    /// it had written before dying is still read to the end.
    func run(killWhen: (@Sendable (Int) -> Bool)? = nil) async throws -> ProcessOutput {
        Self.ignoreBrokenPipes
        return try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { try self.runBlocking(killWhen: killWhen) })
            }
            thread.start()
        }
    }

    /// A child that exits before reading all its input must not kill the test process.
    private static let ignoreBrokenPipes: Void = {
        _ = signal(SIGPIPE, SIG_IGN)
    }()

    private func runBlocking(killWhen: (@Sendable (Int) -> Bool)?) throws -> ProcessOutput {
        let outPipe = try Self.makePipe()
        let errPipe = try Self.makePipe()
        defer { for descriptor in [outPipe.read, errPipe.read] { close(descriptor) } }
        /// The child's standard input, and the test's end of it when it is a pipe.
        let childInput: Int32
        var inFD: Int32 = -1
        var pendingInput = Data()
        switch input {
        case .none:
            childInput = open("/dev/null", O_RDONLY | O_CLOEXEC)
        case .file(let path):
            childInput = open(path, O_RDONLY | O_CLOEXEC)
            guard childInput >= 0 else { throw SubprocessError.cannotOpen(path) }
        case .bytes(let data):
            let pipe = try Self.makePipe()
            childInput = pipe.read
            inFD = pipe.write
            pendingInput = data
        }
        let child: ChildProcess
        do {
            defer { for descriptor in [childInput, outPipe.write, errPipe.write] { close(descriptor) } }
            child = try ChildProcess(
                executable: executable, arguments: arguments, environment: environment, directory: directory,
                standardInput: childInput, standardOutput: outPipe.write, standardError: errPipe.write)
        } catch {
            if inFD >= 0 { close(inFD) }
            throw SubprocessError.cannotStart(executable, "\(error)")
        }
        if inFD >= 0 {
            _ = fcntl(inFD, F_SETFL, fcntl(inFD, F_GETFL) | O_NONBLOCK)
            if pendingInput.isEmpty {
                close(inFD)
                inFD = -1
            }
        }

        var out = Data()
        var err = Data()
        var newlines = 0
        var killed = false
        let outFD = outPipe.read
        let errFD = errPipe.read
        var inputOffset = 0
        var outOpen = true
        var errOpen = true
        var buffer = [UInt8](repeating: 0, count: 1 << 16)

        /// Reads what is there; false at end of file.
        func drain(_ fd: Int32, into data: inout Data) -> Bool {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if count > 0 {
                data.append(contentsOf: buffer[0..<count])
                return true
            }
            return count < 0 && (errno == EINTR || errno == EAGAIN)
        }

        while outOpen || errOpen || inFD >= 0 {
            var fds: [pollfd] = []
            if outOpen { fds.append(pollfd(fd: outFD, events: Int16(POLLIN), revents: 0)) }
            if errOpen { fds.append(pollfd(fd: errFD, events: Int16(POLLIN), revents: 0)) }
            if inFD >= 0 { fds.append(pollfd(fd: inFD, events: Int16(POLLOUT), revents: 0)) }
            let ready = poll(&fds, nfds_t(fds.count), -1)
            if ready < 0 {
                if errno == EINTR { continue }
                throw SubprocessError.pollFailed(errno)
            }
            for entry in fds where entry.revents != 0 {
                if entry.fd == outFD {
                    let before = out.count
                    outOpen = drain(outFD, into: &out)
                    if !killed, out.count > before, let killWhen {
                        newlines += out[before...].withUnsafeBytes { bytes in
                            bytes.withMemoryRebound(to: CChar.self) { $0.filter { $0 == 0x0a }.count }
                        }
                        if killWhen(newlines) {
                            killed = true
                            child.send(SIGKILL)
                        }
                    }
                } else if entry.fd == errFD {
                    errOpen = drain(errFD, into: &err)
                } else if entry.fd == inFD {
                    let written = pendingInput.withUnsafeBytes { bytes in
                        write(inFD, bytes.baseAddress! + inputOffset, min(bytes.count - inputOffset, 1 << 16))
                    }
                    if written > 0 { inputOffset += written }
                    let failed = written < 0 && errno != EAGAIN && errno != EINTR
                    if failed || inputOffset == pendingInput.count {
                        close(inFD)
                        inFD = -1
                    }
                }
            }
        }
        let ending = child.waitForExit()
        return ProcessOutput(
            status: ending?.status ?? -1, signaled: ending?.signaled ?? false, standardOutput: out,
            standardError: err)
    }

    /// A pipe whose ends the test's other children do not inherit.
    private static func makePipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw SubprocessError.cannotStart("a pipe", String(cString: strerror(errno))) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }
}

/// A subprocess that could not be run.
enum SubprocessError: Error, CustomStringConvertible {
    case cannotOpen(String)
    case cannotStart(String, String)
    case pollFailed(Int32)

    var description: String {
        switch self {
        case .cannotOpen(let path): "cannot open \(path) for the child's standard input"
        case .cannotStart(let executable, let reason): "cannot start \(executable): \(reason)"
        case .pollFailed(let code): "poll failed with errno \(code)"
        }
    }
}
