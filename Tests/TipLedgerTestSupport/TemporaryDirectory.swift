// SPDX-License-Identifier: GPL-3.0-or-later
internal import Foundation

/// A fresh directory under the system's temporary directory, removed with everything in it
/// when the value is released: one per test, so tests running in parallel never share files.
public final class TemporaryDirectory: Sendable {
    /// The directory's absolute path.
    public let path: String

    public init() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tipledger-test-\(UUID().uuidString.lowercased())", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        path = url.path
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// The absolute path of `name` inside the directory (the file need not exist).
    public func file(_ name: String) -> String { "\(path)/\(name)" }
}
