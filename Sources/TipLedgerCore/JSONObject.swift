// SPDX-License-Identifier: GPL-3.0-or-later

/// The members of a JSON object, in the order the text gave them; no two have the same name.
///
/// Kept as an array rather than a dictionary because the objects read here are small (an App
/// Store payload has a few dozen members) and are read once: building a hash table and hashing
/// every name on insertion and on every lookup costs more than scanning a few dozen members
/// whose `NameKey`s are compared first. Lookups are therefore linear in the number of members;
/// the parser still refuses duplicates in linear time, however large the object (see
/// `JSONParser`).
public struct JSONObject: Sendable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    public typealias Element = (name: String, value: JSONValue)

    /// One member, with the key its name is found by.
    struct Member: Sendable {
        let key: NameKey
        let name: String
        let value: JSONValue

        init(_ name: String, _ value: JSONValue) {
            self.key = NameKey(name)
            self.name = name
            self.value = value
        }
    }

    private let members: [Member]
    /// The `NameKey.maskBit`s of every member: a name whose bit is clear is not a member, which
    /// settles most lookups of absent names without a scan.
    private let mask: UInt64

    fileprivate init(members: [Member], mask: UInt64) {
        self.members = members
        self.mask = mask
    }

    /// An object of the literal's members, in the literal's order; names must be unique.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        var builder = Builder()
        for (name, value) in elements {
            precondition(builder.append(name, value), "duplicate member \"\(name)\"")
        }
        self = builder.object
    }

    public var startIndex: Int { members.startIndex }
    public var endIndex: Int { members.endIndex }
    public subscript(position: Int) -> Element { (members[position].name, members[position].value) }

    /// The value of the member called `name`, or nil when there is none.
    public subscript(name: String) -> JSONValue? {
        guard let index = JSONObject.index(of: name, key: NameKey(name), in: members, mask: mask) else { return nil }
        return members[index].value
    }

    /// The position of the member called `name`, whose key is `key`, in `members`.
    ///
    /// Members with another key are passed over with one integer comparison; the text is
    /// compared only where the keys match.
    private static func index(of name: String, key: NameKey, in members: [Member], mask: UInt64) -> Int? {
        guard mask & key.maskBit != 0 else { return nil }
        return members.withUnsafeBufferPointer { members in
            for index in members.indices where members[index].key == key && members[index].name == name {
                return index
            }
            return nil
        }
    }

    /// Builds an object one member at a time, refusing a name it already has.
    ///
    /// Up to `linearLimit` members a name is looked for among the members (most often settled by
    /// the mask alone); past it the names also go into a set, so that an object with thousands of
    /// members is still checked in linear time.
    struct Builder {
        static let linearLimit = 32

        private var members: [Member] = []
        private var mask: UInt64 = 0
        private var hashed: Set<String>?

        /// Appends the member; false, appending nothing, when `name` is already a member.
        mutating func append(_ name: String, _ value: JSONValue) -> Bool {
            let member = Member(name, value)
            guard isNew(member) else { return false }
            // App Store payloads have up to ~35 members: reserved once, the array is not
            // regrown; empty objects allocate nothing.
            if members.isEmpty { members.reserveCapacity(32) }
            members.append(member)
            mask |= member.key.maskBit
            return true
        }

        private mutating func isNew(_ member: Member) -> Bool {
            if hashed == nil {
                if members.count < Builder.linearLimit {
                    return JSONObject.index(of: member.name, key: member.key, in: members, mask: mask) == nil
                }
                hashed = Set(members.lazy.map(\.name))
            }
            return hashed!.insert(member.name).inserted
        }

        var object: JSONObject { JSONObject(members: members, mask: mask) }
    }
}

extension JSONObject: Equatable {
    /// Equal when both have the same names with equal values, in any order (as for a dictionary).
    ///
    /// Names are unique on both sides, so equal counts and every member found on the other side
    /// means the same set of members. Quadratic for large objects; nothing on the verification
    /// path compares objects.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.count == rhs.count && lhs.allSatisfy { rhs[$0.name] == $0.value }
    }
}

/// A member name's UTF-8 length and its first two and last two bytes, in one integer.
///
/// Equal names have equal keys, and different names of one object nearly always have different
/// keys (camel-case names of equal length rarely share both ends), so comparing keys first
/// leaves few names to compare as text. Reading four bytes costs less than hashing the name.
struct NameKey: Sendable, Equatable {
    private let bits: UInt64

    init(_ name: String) {
        var name = name
        bits = name.withUTF8 { NameKey.bits(of: $0) }
    }

    private static func bits(of bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        let count = bytes.count
        var bits = UInt64(truncatingIfNeeded: count) << 32
        guard count > 0 else { return bits }
        bits |= UInt64(bytes[0]) << 24 | UInt64(bytes[count - 1])
        guard count > 1 else { return bits }
        return bits | UInt64(bytes[1]) << 16 | UInt64(bytes[count - 2]) << 8
    }

    /// One of 64 bits chosen by the key (Fibonacci hashing: the top six bits of a product with
    /// an odd constant), for `JSONObject`'s mask of the names it holds.
    var maskBit: UInt64 { 1 << ((bits &* 0x9e37_79b9_7f4a_7c15) >> 58) }
}
