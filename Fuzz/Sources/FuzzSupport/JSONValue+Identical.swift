// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore

extension JSONValue {
    /// Whether `other` is this value with its members in the same order: what two readings of
    /// one text give. Linear, where `==` (members in any order) is quadratic in a large object.
    public func isIdentical(to other: JSONValue) -> Bool {
        switch (self, other) {
        case (.array(let mine), .array(let others)):
            return mine.count == others.count && zip(mine, others).allSatisfy { $0.isIdentical(to: $1) }
        case (.object(let mine), .object(let others)):
            return mine.count == others.count
                && zip(mine, others).allSatisfy { $0.name == $1.name && $0.value.isIdentical(to: $1.value) }
        case (.array, _), (.object, _):
            return false
        default:
            return self == other
        }
    }
}
