// SPDX-License-Identifier: GPL-3.0-or-later
internal import FoundationEssentials

#if canImport(Glibc)
    internal import Glibc
#endif

/// Reading whole small files (certificates, catalogs, tokens) with a size bound.
enum FileInput {
    /// The bytes of `path`, or a CLI error (status 74) when it cannot be read or is over `limit`.
    static func read(_ path: String, limit: Int) throws -> [UInt8] {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        if let size = attributes?[.size] as? Int, size > limit {
            throw CLIError(.ioError, "\(path) is \(size) bytes; at most \(limit) are read")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIError(.ioError, "cannot read \(path): \(reason(path))")
        }
        guard data.count <= limit else {
            throw CLIError(.ioError, "\(path) is \(data.count) bytes; at most \(limit) are read")
        }
        return [UInt8](data)
    }

    /// Why `path` cannot be read as a file (or as a directory when `directory` is true), in the
    /// system's words where it has them ("No such file or directory").
    static func reason(_ path: String, directory: Bool = false) -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return Posix.message(errno) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return Posix.message(errno) }
        let isDirectory = status.st_mode & S_IFMT == S_IFDIR
        if isDirectory != directory { return isDirectory ? "it is a directory" : "it is not a directory" }
        return "reading it failed"
    }

    /// `path` when SQLite takes it as the name of a file, else a usage error naming `what` (the
    /// option or argument that gave it): SQLite opens an empty name as a temporary database and
    /// `:memory:` as one in memory, which keep nothing, and reads a name that starts with `file:`
    /// as a URI (https://sqlite.org/uri.html). A name ending in `/` names a directory, but
    /// SQLite's Unix VFS drops empty path elements and would open the file without the slash,
    /// which the checks that look for a ledger with `stat` do not find.
    static func databaseFile(_ path: String, for what: String, command: String?) throws -> String {
        guard !path.isEmpty else { throw CLIError.usage("\(what) needs a file name", command: command) }
        if path.hasSuffix("/") {
            throw CLIError(
                .usage, "\(what) \(path) ends in '/', which names a directory",
                hint: "give the path of a file, without the '/' at its end")
        }
        let literal = "./\(path)"
        if path == ":memory:" {
            throw CLIError(
                .usage, "\(what) \(path) would be a database in memory, which keeps nothing",
                hint: "give a file's path (\(literal) for a file of that name)")
        }
        if path.hasPrefix("file:") {
            throw CLIError(
                .usage, "\(what) \(path) would be read as an SQLite URI",
                hint: "give a file's path (\(literal) for a file of that name)")
        }
        return path
    }

    /// Whether something exists at `path`.
    static func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }
}
