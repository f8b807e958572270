// SPDX-License-Identifier: GPL-3.0-or-later

/// A value bound to a statement parameter: SQLite's storage classes.
enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case text(String)
    case blob([UInt8])
}

/// A Swift value that can be bound to a statement parameter.
protocol SQLBindable {
    var sqlValue: SQLValue { get }
}

extension Int64: SQLBindable {
    var sqlValue: SQLValue { .integer(self) }
}

extension Int: SQLBindable {
    var sqlValue: SQLValue { .integer(Int64(self)) }
}

extension Int32: SQLBindable {
    var sqlValue: SQLValue { .integer(Int64(self)) }
}

extension Bool: SQLBindable {
    var sqlValue: SQLValue { .integer(self ? 1 : 0) }
}

extension String: SQLBindable {
    var sqlValue: SQLValue { .text(self) }
}

extension Array: SQLBindable where Element == UInt8 {
    var sqlValue: SQLValue { .blob(self) }
}

extension Optional: SQLBindable where Wrapped: SQLBindable {
    var sqlValue: SQLValue { self?.sqlValue ?? .null }
}

extension SQLValue: SQLBindable {
    var sqlValue: SQLValue { self }
}
