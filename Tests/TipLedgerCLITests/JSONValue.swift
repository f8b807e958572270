// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation

/// JSON read with Foundation's `JSONSerialization`, independently of the project's own parser.
enum JSONValue {
    /// `text` parsed as a JSON object.
    static func object(_ text: String) throws -> [String: Any] {
        try object(Data(text.utf8))
    }

    /// `data` parsed as a JSON object.
    static func object(_ data: Data) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw JSONValueError(text: String(decoding: data.prefix(200), as: UTF8.self))
        }
        return object
    }

    /// An integer member (JSON numbers come back as `NSNumber`); nil when missing or null.
    static func int64(_ value: Any?) -> Int64? {
        (value as? NSNumber).map(\.int64Value)
    }

    /// Whether a member is JSON `null`.
    static func isNull(_ value: Any?) -> Bool { value is NSNull }
}

/// Text that is not a JSON object.
struct JSONValueError: Error, CustomStringConvertible {
    let text: String
    var description: String { "not a JSON object: \(text)" }
}
