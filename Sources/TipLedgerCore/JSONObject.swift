// SPDX-License-Identifier: GPL-3.0-or-later

/// The members of a JSON object, in the order the text gave them; no two have the same name.
///
/// Kept as an array rather than a dictionary because the objects read here are small (an App
/// Store payload has a few dozen members) and are read once: building a hash table and hashing
/// every name on insertion and on every lookup costs more than scanning a few dozen members
/// whose `NameKey`s are compared first. Lookups are therefore linear in the number of members;
/// the parser still refuses duplicates in linear time, however large the object (see
/// `JSONParser`).
///
/// Names are the same when Swift's `String` says so, as in the dictionary this replaces: that is
/// canonical equivalence, under which a non-ASCII name can equal another spelling, even an ASCII
/// one ("K" and the Kelvin sign U+212A). Keys and the mask stand for the bytes, so they are used
/// only while every name involved is ASCII; otherwise names are compared as text.
public struct JSONObject: Sendable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    public typealias Element = (name: String, value: JSONValue)

    /// One member, with the key its name is found by.
    struct Member: Sendable {
        let key: NameKey
        let name: String
        let value: JSONValue

        init(_ name: String, key: NameKey, _ value: JSONValue) {
            self.key = key
            self.name = name
            self.value = value
        }

        /// Whether the name's UTF-8 is exactly `bytes`.
        func hasName(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            // Names are native strings, whose UTF-8 is contiguous; a loop over two buffers costs
            // a fraction of the generic `elementsEqual`.
            let same = name.utf8.withContiguousStorageIfAvailable { utf8 in
                guard utf8.count == bytes.count else { return false }
                for index in utf8.indices where utf8[index] != bytes[index] { return false }
                return true
            }
            return same ?? name.utf8.elementsEqual(bytes)
        }
    }

    private let members: [Member]
    /// The `NameKey.maskBit`s of every member: a name whose bit is clear is not a member, which
    /// settles most lookups of absent names without a scan.
    private let mask: UInt64
    /// Whether every member name is ASCII, so that keys and the mask may be used.
    private let namesAreASCII: Bool

    fileprivate init(members: [Member], mask: UInt64, namesAreASCII: Bool) {
        self.members = members
        self.mask = mask
        self.namesAreASCII = namesAreASCII
    }

    /// An object of the literal's members, in the literal's order; names must be unique.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        var builder = Builder()
        for (name, value) in elements {
            precondition(builder.append(name, key: NameKey(name), value), "duplicate member \"\(name)\"")
        }
        self = builder.object
    }

    public var startIndex: Int { members.startIndex }
    public var endIndex: Int { members.endIndex }
    public subscript(position: Int) -> Element { (members[position].name, members[position].value) }

    /// The value of the member called `name`, or nil when there is none.
    public subscript(name: String) -> JSONValue? {
        let index = JSONObject.index(
            of: name, key: NameKey(name), in: members, mask: mask, namesAreASCII: namesAreASCII)
        guard let index else { return nil }
        return members[index].value
    }

    /// The value of the member called `name`, or nil when there is none: the lookup of a name
    /// written in the source, as the payload models do.
    ///
    /// Such a name's bytes, and whether they are ASCII, come for free, so an ASCII name costs a
    /// key of four bytes and, where the keys match, a comparison of bytes, which between ASCII
    /// names is the same as comparing them as `String`s.
    func value(named name: StaticString) -> JSONValue? {
        guard name.isASCII && namesAreASCII else { return self[name.description] }
        let bytes = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        let key = NameKey(utf8: bytes, isASCII: true)
        guard mask & key.maskBit != 0 else { return nil }
        return members.withUnsafeBufferPointer { members in
            for member in members where member.key == key && member.hasName(bytes) {
                return member.value
            }
            return nil
        }
    }

    /// The position of the member called `name`, whose key is `key`, in `members`.
    ///
    /// Members with another key are passed over with one integer comparison; the text is
    /// compared only where the keys match.
    private static func index(
        of name: String, key: NameKey, in members: [Member], mask: UInt64, namesAreASCII: Bool
    ) -> Int? {
        guard key.isASCII && namesAreASCII else { return members.firstIndex { $0.name == name } }
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
        private var namesAreASCII = true
        private var hashed: Set<String>?

        /// Appends the member; false, appending nothing, when `name` is already a member.
        mutating func append(_ name: String, key: NameKey, _ value: JSONValue) -> Bool {
            let member = Member(name, key: key, value)
            guard isNew(member) else { return false }
            // App Store payloads have up to ~35 members: reserved once, the array is not
            // regrown; empty objects allocate nothing.
            if members.isEmpty { members.reserveCapacity(32) }
            members.append(member)
            mask |= member.key.maskBit
            namesAreASCII = namesAreASCII && key.isASCII
            return true
        }

        private mutating func isNew(_ member: Member) -> Bool {
            if hashed == nil {
                if members.count < Builder.linearLimit {
                    let index = JSONObject.index(
                        of: member.name, key: member.key, in: members, mask: mask, namesAreASCII: namesAreASCII)
                    return index == nil
                }
                hashed = Set(members.lazy.map(\.name))
            }
            return hashed!.insert(member.name).inserted
        }

        var object: JSONObject { JSONObject(members: members, mask: mask, namesAreASCII: namesAreASCII) }
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

/// A member name's UTF-8 length and its first two and last two bytes, in one integer, and
/// whether the name is ASCII.
///
/// Equal ASCII names have equal keys, and different names of one object nearly always have
/// different keys (camel-case names of equal length rarely share both ends), so comparing keys
/// first leaves few names to compare as text. Reading four bytes costs less than hashing the
/// name. Keys of non-ASCII names say nothing about equality (see `JSONObject`).
struct NameKey: Sendable, Equatable {
    private static let nonASCII: UInt64 = 1 << 63

    private let bits: UInt64

    init(_ name: String) {
        let utf8 = name.utf8
        bits =
            utf8.withContiguousStorageIfAvailable { NameKey.bits(of: $0, isASCII: NameKey.isASCII($0)) }
            ?? Array(utf8).withUnsafeBufferPointer { NameKey.bits(of: $0, isASCII: NameKey.isASCII($0)) }
    }

    /// The key of the name whose UTF-8 is `bytes`; `isASCII` says whether they are all ASCII.
    init(utf8 bytes: UnsafeBufferPointer<UInt8>, isASCII: Bool) {
        bits = NameKey.bits(of: bytes, isASCII: isASCII)
    }

    var isASCII: Bool { bits & NameKey.nonASCII == 0 }

    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.reduce(0, |) < 0x80
    }

    private static func bits(of bytes: UnsafeBufferPointer<UInt8>, isASCII: Bool) -> UInt64 {
        let count = bytes.count
        var bits = UInt64(truncatingIfNeeded: count) << 32 | (isASCII ? 0 : NameKey.nonASCII)
        guard count > 0 else { return bits }
        bits |= UInt64(bytes[0]) << 24 | UInt64(bytes[count - 1])
        guard count > 1 else { return bits }
        return bits | UInt64(bytes[1]) << 16 | UInt64(bytes[count - 2]) << 8
    }

    /// One of 64 bits chosen by the key (Fibonacci hashing: the top six bits of a product with
    /// an odd constant), for `JSONObject`'s mask of the names it holds.
    var maskBit: UInt64 { 1 << ((bits &* 0x9e37_79b9_7f4a_7c15) >> 58) }
}
