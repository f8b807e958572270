// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// One line of input, numbered from 1.
struct InputLine: Sendable {
    let number: Int
    let content: Content
    /// The line's length in bytes with its line ending, even when it was too long to keep.
    let byteCount: Int

    /// What the reader made of a line's bytes.
    enum Content: Sendable {
        /// The text without its line ending.
        case text(String)
        /// Longer than the reader's limit: its bytes were skipped, never held in memory.
        case tooLong
        /// Not UTF-8. Decoded with replacement characters, it could read as a line that was
        /// never sent (a webhook body whose odd bytes sit in a member nobody reads), where
        /// `serve` refuses the same bytes: so it is refused here too.
        case notUTF8
    }

    /// The line's text; nil when it was too long or not UTF-8.
    var text: String? {
        if case .text(let text) = content { text } else { nil }
    }

    /// Whether the line holds nothing but the whitespace allowed around a token: such lines are
    /// skipped, not answered.
    var isBlank: Bool {
        text?.utf8.allSatisfy(JSONParser.isWhitespace) ?? false
    }
}

/// Reads lines from a file descriptor in fixed-size chunks, keeping at most one line (bounded
/// by `maximumLineBytes`) in memory however long the input is.
///
/// The bytes are read into one buffer, allocated once and reused: `start..<end` is what was
/// read and not returned yet, and `read(2)` writes straight into the room after `end`.
struct LineReader {
    let fileDescriptor: Int32
    /// The longest line kept, counting its line ending, as an HTTP body of the same bytes
    /// counts a trailing newline.
    let maximumLineBytes: Int
    private var buffer: [UInt8]
    private var start = 0
    /// The end of the bytes read; the buffer's room after it is free.
    private var end = 0
    private var atEnd = false
    private var lineNumber = 0
    /// Set when a read failed with an error other than end of input.
    private(set) var readError: Int32?

    /// A CLI error (status 74) when reading standard input ended with `readError`.
    func checkStandardInputRead() throws {
        guard let readError else { return }
        throw CLIError(.ioError, "reading standard input failed: \(Posix.message(readError))")
    }

    init(fileDescriptor: Int32, maximumLineBytes: Int) {
        self.fileDescriptor = fileDescriptor
        self.maximumLineBytes = maximumLineBytes
        buffer = [UInt8](repeating: 0, count: 2 * Self.chunk)
    }

    /// The next line, or nil at the end of input.
    mutating func next() -> InputLine? {
        var skipped = 0  // bytes of an over-long line already thrown away
        while true {
            if let newline = newline() {
                lineNumber += 1
                if lineNumber == 1 && skipped == 0 { skipByteOrderMark(before: newline) }
                let length = newline + 1 - start
                defer { start = newline + 1 }
                if skipped > 0 || length > maximumLineBytes {
                    return InputLine(number: lineNumber, content: .tooLong, byteCount: skipped + length)
                }
                var lineEnd = newline
                if lineEnd > start && buffer[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
                return InputLine(
                    number: lineNumber, content: Self.content(buffer[start..<lineEnd]), byteCount: length)
            }
            if atEnd {
                guard start < end || skipped > 0 else { return nil }
                lineNumber += 1
                if lineNumber == 1 && skipped == 0 { skipByteOrderMark(before: end) }
                let length = end - start
                defer { start = end }
                if skipped > 0 || length > maximumLineBytes {
                    return InputLine(number: lineNumber, content: .tooLong, byteCount: skipped + length)
                }
                return InputLine(number: lineNumber, content: Self.content(buffer[start..<end]), byteCount: length)
            }
            // No full line buffered: drop what was consumed, and what an over-long line has
            // already used, then read more.
            if end - start > maximumLineBytes {
                skipped += end - start
                start = 0
                end = 0
            } else {
                dropConsumed()
            }
            fill()
        }
    }

    /// The text of a line's bytes, when they are UTF-8.
    private static func content(_ bytes: ArraySlice<UInt8>) -> InputLine.Content {
        String(validating: bytes, as: UTF8.self).map { .text($0) } ?? .notUTF8
    }

    /// Skips the UTF-8 byte order mark an editor may put at the start of a file, when the first
    /// line (ending at `end`) starts with one: it belongs to the file, not to the line. One
    /// anywhere else stays in its line.
    private mutating func skipByteOrderMark(before end: Int) {
        let mark: [UInt8] = [0xef, 0xbb, 0xbf]
        if end - start >= mark.count && buffer[start..<(start + mark.count)].elementsEqual(mark) {
            start += mark.count
        }
    }

    /// Whether the input has ended and every line of it was returned.
    var isFinished: Bool { atEnd && start >= end }

    /// Whether `next()` would wait for input longer than `patience` (a producer that pauses, a
    /// terminal): no whole line is buffered, the input has not ended, and no more arrives
    /// within `patience`. What is ready meanwhile is read, so a line that came in part (a
    /// long line through a pipe) counts as not there yet.
    /// `patience` is asked for only when no line is buffered (the clock stays off the common path).
    mutating func wouldWait(patience: @autoclosure () -> Duration = .zero) -> Bool {
        var deadline: ContinuousClock.Instant? = nil
        // An over-long line is left to `next()`, which skips it.
        while !atEnd && newline() == nil && end - start <= maximumLineBytes {
            let waitUntil = deadline ?? ContinuousClock.now.advanced(by: patience())
            deadline = waitUntil
            var ready = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
            let remaining = max(.zero, ContinuousClock.now.duration(to: waitUntil))
            let status = poll(&ready, 1, Int32((remaining / .milliseconds(1)).rounded(.up)))
            if status < 0 && errno == EINTR { continue }
            if status == 0 { return true }
            guard status > 0 else { return false }
            // Something to read, or an end or error that reading reports: no wait either way.
            dropConsumed()
            fill()
        }
        return false
    }

    /// Moves what was read and not returned yet to the front of the buffer.
    private mutating func dropConsumed() {
        guard start > 0 else { return }
        let (start, count) = (self.start, end - self.start)
        buffer.withUnsafeMutableBytes { bytes in
            guard count > 0, let base = bytes.baseAddress else { return }
            base.copyMemory(from: base + start, byteCount: count)
        }
        self.start = 0
        end = count
    }

    /// The index of the first line feed in `start..<end`, found with `memchr`.
    private func newline() -> Int? {
        let (start, end) = (self.start, self.end)
        return buffer.withUnsafeBufferPointer { bytes in
            guard start < end, let base = bytes.baseAddress, let found = memchr(base + start, 0x0a, end - start)
            else { return nil }
            return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// Bytes one read asks for at most.
    private static let chunk = 1 << 16

    private mutating func fill() {
        // A line longer than the room (up to `maximumLineBytes`) grows the buffer, once.
        if buffer.count - end < Self.chunk {
            buffer.append(contentsOf: [UInt8](repeating: 0, count: max(Self.chunk, buffer.count)))
        }
        while true {
            let (end, room) = (self.end, min(Self.chunk, buffer.count - self.end))
            let count = buffer.withUnsafeMutableBytes { bytes in
                read(fileDescriptor, bytes.baseAddress! + end, room)
            }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 {
                if count < 0 { readError = errno }
                atEnd = true
            } else {
                self.end += count
            }
            return
        }
    }
}
