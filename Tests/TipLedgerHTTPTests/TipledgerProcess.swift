// SPDX-License-Identifier: GPL-3.0-or-later
import Dispatch
import Foundation
import Synchronization
import TipLedgerTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Why the `tipledger` binary could not be run.
enum TipledgerProcessError: Error, CustomStringConvertible {
    case binaryNotFound([String])
    case noServingLine(String)

    var description: String {
        switch self {
        case .binaryNotFound(let paths): "no tipledger binary at \(paths.joined(separator: " or ")); build it first"
        case .noServingLine(let errors): "serve printed no 'serving http://…' line; standard error: \(errors)"
        }
    }
}

/// The `tipledger` binary of this build, found next to the test bundle (both are products of
/// one `swift build --build-tests`), else in the project's debug build folder.
enum TipledgerBinary {
    static let candidates: [String] = {
        var paths: [String] = []
        if let runner = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            paths.append(
                URL(fileURLWithPath: runner).deletingLastPathComponent().appendingPathComponent("tipledger").path)
        }
        paths.append("\(Fixtures.projectDirectory)/.build/debug/tipledger")
        return paths
    }()

    static func path() throws -> String {
        guard let path = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw TipledgerProcessError.binaryNotFound(candidates)
        }
        return path
    }
}

/// Everything a child writes to one pipe, read on a thread of its own so that the child never
/// blocks on a full pipe, with a bounded wait for what a test expects to appear.
final class PipeCollector: Sendable {
    private let bytes = Mutex<[UInt8]>([])
    private let ended = Atomic<Bool>(false)
    private let arrived = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    /// Starts reading `descriptor` until end of file; the caller keeps it open until `waitForEnd`.
    init(descriptor: Int32) {
        Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                bytes.withLock { $0.append(contentsOf: buffer[..<count]) }
                arrived.signal()
            }
            ended.store(true, ordering: .releasing)
            arrived.signal()
            finished.signal()
        }.start()
    }

    /// What was read so far, as UTF-8 text.
    var text: String { bytes.withLock { String(decoding: $0, as: UTF8.self) } }

    /// What was read so far, split into lines (without a trailing empty one).
    var lines: [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.isEmpty }
    }

    /// Waits at most `timeout` until `condition` holds for the text read; true when it does.
    func wait(upTo timeout: Duration, until condition: (String) -> Bool) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            let current = text
            if condition(current) { return true }
            if ended.load(ordering: .acquiring) { return condition(text) }
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero, arrived.wait(timeout: .now() + dispatchInterval(remaining)) == .success else {
                return condition(text)
            }
        }
    }

    /// Waits at most `timeout` for end of file; true when it came.
    @discardableResult
    func waitForEnd(upTo timeout: Duration) -> Bool {
        guard finished.wait(timeout: .now() + dispatchInterval(timeout)) == .success else { return false }
        finished.signal()
        return true
    }
}

/// A running `tipledger` child with its standard output and error collected.
final class TipledgerProcess {
    let child: ChildProcess
    let output: PipeCollector
    let errors: PipeCollector
    /// The test's ends of the output and error pipes, closed once the collectors are done.
    private let readEnds: [Int32]
    private var status: Int32?

    /// Starts `tipledger arguments...` with exactly `environment` and `input` (a file to read)
    /// as standard input, or none; `launcher` turns that command line into the one run
    /// (`PrivateMount`'s, or `underOpenFileLimit`'s, say).
    init(
        _ arguments: [String], environment: [String: String], input: String? = nil,
        launcher: ([String]) -> [String] = { $0 }
    ) throws {
        let command = launcher([try TipledgerBinary.path()] + arguments)
        let inputDescriptor = open(input ?? "/dev/null", O_RDONLY | O_CLOEXEC)
        guard inputDescriptor >= 0 else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: input ?? ""])
        }
        var outputEnds: [Int32] = [-1, -1]
        var errorEnds: [Int32] = [-1, -1]
        guard pipe(&outputEnds) == 0, pipe(&errorEnds) == 0 else { throw CocoaError(.fileWriteUnknown) }
        for end in outputEnds + errorEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        defer { for descriptor in [inputDescriptor, outputEnds[1], errorEnds[1]] { close(descriptor) } }
        do {
            child = try ChildProcess(
                executable: command[0], arguments: Array(command.dropFirst()), environment: environment,
                standardInput: inputDescriptor, standardOutput: outputEnds[1], standardError: errorEnds[1])
        } catch {
            for descriptor in [outputEnds[0], errorEnds[0]] { close(descriptor) }
            throw error
        }
        readEnds = [outputEnds[0], errorEnds[0]]
        output = PipeCollector(descriptor: outputEnds[0])
        errors = PipeCollector(descriptor: errorEnds[0])
    }

    deinit {
        if waitForExit(upTo: .zero) == nil {
            child.send(SIGKILL)
            _ = waitForExit(upTo: .seconds(10))
        }
        // The collectors read to the end before their descriptors go.
        if output.waitForEnd(upTo: .seconds(5)) && errors.waitForEnd(upTo: .seconds(5)) {
            for descriptor in readEnds { close(descriptor) }
        }
    }

    var processIdentifier: Int32 { child.processIdentifier }

    /// A launcher that runs the command under `limit` open files (soft and hard, set by
    /// `/bin/sh`, which then `exec`s it, so the PID stays the command's).
    static func underOpenFileLimit(_ limit: Int) -> ([String]) -> [String] {
        { command in ["/bin/sh", "-c", "ulimit -n \(limit) && exec \"$0\" \"$@\""] + command }
    }

    /// Sends `signal` to the process.
    func send(_ signal: Int32) {
        child.send(signal)
    }

    /// Waits at most `timeout` for the process to exit and for its output to end: its exit
    /// status (128 + N after signal N), or nil while it still runs.
    func waitForExit(upTo timeout: Duration) -> Int32? {
        if let status { return status }
        guard let ending = child.waitForExit(timeout: timeout) else { return nil }
        status = ending.signaled ? 128 + ending.status : ending.status
        output.waitForEnd(upTo: .seconds(5))
        errors.waitForEnd(upTo: .seconds(5))
        return status
    }

    /// Runs `tipledger arguments...` (as `launcher` turns it) to its end (at most `timeout`,
    /// then it is killed), reading the file `input`, if given, as standard input.
    static func run(
        _ arguments: [String], environment: [String: String], input: String? = nil, timeout: Duration = .seconds(60),
        launcher: ([String]) -> [String] = { $0 }
    ) throws -> (status: Int32?, output: String, errors: String) {
        let child = try TipledgerProcess(arguments, environment: environment, input: input, launcher: launcher)
        let status = child.waitForExit(upTo: timeout)
        return (status, child.output.text, child.errors.text)
    }
}

/// `duration` for Dispatch's deadlines (never negative).
func dispatchInterval(_ duration: Duration) -> DispatchTimeInterval {
    let (seconds, attoseconds) = duration.components
    guard seconds >= 0 else { return .nanoseconds(0) }
    return .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
}
