// SPDX-License-Identifier: GPL-3.0-or-later

/// Strict base64 in the two alphabets a JWS uses (RFC 4648): base64url without padding for the
/// three JWS parts (RFC 7515, section 2) and standard base64 with padding for `x5c` entries
/// (RFC 7515, section 4.1.6).
///
/// Strict means: no whitespace, no characters outside the alphabet, padding exactly as the
/// alphabet requires, and unused trailing bits zero, so every input has one decoding and every
/// byte string one encoding.
package enum Base64 {
    /// The two alphabets.
    package enum Alphabet: Sendable {
        /// `A–Z a–z 0–9 - _`, never padded.
        case url
        /// `A–Z a–z 0–9 + /`, padded with `=` to a multiple of 4.
        case standard
    }

    private static let invalid: UInt8 = 0xff

    private static let urlTable: [UInt8] = table(plus: UInt8(ascii: "-"), slash: UInt8(ascii: "_"))
    private static let standardTable: [UInt8] = table(plus: UInt8(ascii: "+"), slash: UInt8(ascii: "/"))

    private static func table(plus: UInt8, slash: UInt8) -> [UInt8] {
        var table = [UInt8](repeating: invalid, count: 256)
        for (index, byte) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8.enumerated() {
            table[Int(byte)] = UInt8(index)
        }
        table[Int(plus)] = 62
        table[Int(slash)] = 63
        return table
    }

    /// Decodes `input`, or returns nil when it is not strictly valid in `alphabet`.
    package static func decode(_ input: UnsafeBufferPointer<UInt8>, alphabet: Alphabet) -> [UInt8]? {
        var count = input.count
        if alphabet == .standard {
            guard count % 4 == 0 else { return nil }
            if count > 0 && input[count - 1] == UInt8(ascii: "=") { count -= 1 }
            if count > 0 && input[count - 1] == UInt8(ascii: "=") { count -= 1 }
        }
        // A final group of one character cannot encode a whole byte.
        guard count % 4 != 1 else { return nil }
        let table = alphabet == .url ? urlTable : standardTable
        let whole = count / 4
        let tail = count % 4
        let outputCount = whole * 3 + (tail == 0 ? 0 : tail - 1)
        var valid = true
        let output = [UInt8](unsafeUninitializedCapacity: outputCount) { out, initialized in
            table.withUnsafeBufferPointer { table in
                var index = 0
                var written = 0
                for _ in 0..<whole {
                    let a = table[Int(input[index])]
                    let b = table[Int(input[index + 1])]
                    let c = table[Int(input[index + 2])]
                    let d = table[Int(input[index + 3])]
                    guard (a | b | c | d) & 0xc0 == 0 else {
                        valid = false
                        return
                    }
                    out[written] = a << 2 | b >> 4
                    out[written + 1] = b << 4 | c >> 2
                    out[written + 2] = c << 6 | d
                    index += 4
                    written += 3
                }
                switch tail {
                case 2:
                    let a = table[Int(input[index])]
                    let b = table[Int(input[index + 1])]
                    guard (a | b) & 0xc0 == 0, b & 0x0f == 0 else {
                        valid = false
                        return
                    }
                    out[written] = a << 2 | b >> 4
                case 3:
                    let a = table[Int(input[index])]
                    let b = table[Int(input[index + 1])]
                    let c = table[Int(input[index + 2])]
                    guard (a | b | c) & 0xc0 == 0, c & 0x03 == 0 else {
                        valid = false
                        return
                    }
                    out[written] = a << 2 | b >> 4
                    out[written + 1] = b << 4 | c >> 2
                default:
                    break
                }
            }
            // Every byte was written when valid; on failure the array is dropped unread.
            initialized = valid ? outputCount : 0
        }
        return valid ? output : nil
    }

    /// Decodes `input`, or returns nil when it is not strictly valid in `alphabet`.
    package static func decode(_ input: some StringProtocol, alphabet: Alphabet) -> [UInt8]? {
        if let result = input.utf8.withContiguousStorageIfAvailable({ decode($0, alphabet: alphabet) }) {
            return result
        }
        return Array(input.utf8).withUnsafeBufferPointer { decode($0, alphabet: alphabet) }
    }

    /// Encodes `bytes` in `alphabet` (padded for `.standard`, unpadded for `.url`).
    package static func encode(_ bytes: some Collection<UInt8>, alphabet: Alphabet) -> String {
        let symbols = Array(
            (alphabet == .url
                ? "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
                : "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/").utf8)
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity((input.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= input.count {
            let value = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            for shift in [18, 12, 6, 0] { output.append(symbols[Int(value >> UInt32(shift) & 0x3f)]) }
            index += 3
        }
        let remaining = input.count - index
        if remaining > 0 {
            var value = UInt32(input[index]) << 16
            if remaining == 2 { value |= UInt32(input[index + 1]) << 8 }
            output.append(symbols[Int(value >> 18 & 0x3f)])
            output.append(symbols[Int(value >> 12 & 0x3f)])
            if remaining == 2 { output.append(symbols[Int(value >> 6 & 0x3f)]) }
            if alphabet == .standard {
                output.append(contentsOf: Array(repeating: UInt8(ascii: "="), count: 3 - remaining))
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
