// SPDX-License-Identifier: GPL-3.0-or-later

#if canImport(Glibc)
    internal import Glibc
#endif

/// Reads the small files the client is configured with (the signing key, the extra CA), whole
/// and bounded, with the reason in the system's words when it cannot.
enum ConfigurationFile {
    /// The bytes of the regular file at `path`, or why it cannot be read ("No such file or
    /// directory", "it is a directory", "it is 70000 bytes; at most 65536 are read").
    static func read(_ path: String, limit: Int) -> Result<[UInt8], ReadFailure> {
        // O_NONBLOCK: opening a FIFO must not wait for a writer; regular files ignore it.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return .failure(ReadFailure(reason: systemMessage(errno))) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return .failure(ReadFailure(reason: systemMessage(errno))) }
        switch status.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: return .failure(ReadFailure(reason: "it is a directory"))
        default: return .failure(ReadFailure(reason: "it is not a regular file"))
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return .failure(ReadFailure(reason: systemMessage(errno))) }
            if count == 0 { return .success(bytes) }
            bytes += chunk.prefix(count)
            guard bytes.count <= limit else {
                return .failure(ReadFailure(reason: "it is larger than the \(limit) bytes read"))
            }
        }
    }

    /// Why a file could not be read.
    struct ReadFailure: Error {
        let reason: String
    }

    private static func systemMessage(_ code: Int32) -> String { String(cString: strerror(code)) }
}
