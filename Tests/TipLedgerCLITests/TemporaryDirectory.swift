// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation

/// A fresh directory for one test, removed when the test's body returns or throws.
struct TemporaryDirectory: Sendable {
    let path: String

    /// Runs `body` with a new empty directory, then removes it.
    static func with<Result>(_ body: (TemporaryDirectory) async throws -> Result) async throws -> Result {
        let directory = try TemporaryDirectory(prefix: "tipledger-cli-test")
        defer { try? FileManager.default.removeItem(atPath: directory.path) }
        return try await body(directory)
    }

    /// Creates a new directory under the system's temporary directory.
    init(prefix: String) throws {
        var base = NSTemporaryDirectory()
        while base.count > 1 && base.hasSuffix("/") { base.removeLast() }
        let pattern = "\(base)/\(prefix).XXXXXX"
        var template = Array(pattern.utf8CString)
        guard mkdtemp(&template) != nil else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: pattern])
        }
        path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The path of `name` inside the directory.
    func file(_ name: String) -> String { "\(path)/\(name)" }

    /// Writes `text` to `name` and returns its path.
    @discardableResult
    func write(_ text: String, to name: String) throws -> String {
        try write(Data(text.utf8), to: name)
    }

    /// Writes `data` to `name` and returns its path.
    @discardableResult
    func write(_ data: Data, to name: String) throws -> String {
        let path = file(name)
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The contents of `name`.
    func read(_ name: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: file(name)))
    }

    /// Whether `name` exists.
    func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: file(name)) }
}
