// SPDX-License-Identifier: GPL-3.0-or-later
internal import Foundation

/// Files under `Tests/Fixtures`, found relative to this source file so tests run from any
/// directory without resource bundles.
public enum Fixtures {
    /// The absolute path of `Tests/Fixtures`.
    public static let directory: String = {
        var url = URL(fileURLWithPath: #filePath)
        url.deleteLastPathComponent()  // TipLedgerTestSupport
        url.deleteLastPathComponent()  // Tests
        return url.appendingPathComponent("Fixtures").path
    }()

    /// The top of the source tree (where `Package.swift` is).
    public static let projectDirectory: String = {
        var url = URL(fileURLWithPath: directory)
        url.deleteLastPathComponent()
        url.deleteLastPathComponent()
        return url.path
    }()

    /// The absolute path of `relativePath` under `Tests/Fixtures`.
    public static func path(_ relativePath: String) -> String { "\(directory)/\(relativePath)" }

    /// The bytes of a fixture file.
    public static func bytes(_ relativePath: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path(relativePath)) else {
            throw FixtureError(path: relativePath)
        }
        return [UInt8](data)
    }

    /// A fixture file as text, without surrounding whitespace.
    public static func text(_ relativePath: String) throws -> String {
        String(decoding: try bytes(relativePath), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A fixture file parsed as JSON (through Foundation, independently of the project's parser).
    public static func json(_ relativePath: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(try bytes(relativePath)))
    }

    /// A JSON Lines fixture: each non-empty line parsed as one JSON value (through Foundation),
    /// in file order.
    public static func jsonLines(_ relativePath: String) throws -> [Any] {
        try bytes(relativePath).split(separator: UInt8(ascii: "\n")).map {
            try JSONSerialization.jsonObject(with: Data($0))
        }
    }
}

/// A fixture that could not be read.
public struct FixtureError: Error, CustomStringConvertible {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    public var description: String { "cannot read fixture \(path)" }
}
