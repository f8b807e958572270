// SPDX-License-Identifier: GPL-3.0-or-later
internal import Foundation
internal import FuzzSupport
internal import TipLedgerCore

/// base64url (JWS parts) and standard base64 (`x5c` entries).
///
/// Properties, in both alphabets: what decodes encodes back to the same text (one encoding per
/// byte string); any bytes encode and decode back; decoding agrees with Foundation's
/// `Data(base64Encoded:)`, which also accepts unused trailing bits that are not zero (the one
/// difference: such text is not what encoding its bytes gives).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBase64(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    for alphabet in [Base64.Alphabet.url, .standard] {
        let encoded = Base64.encode(bytes, alphabet: alphabet)
        Property.require(Base64.decode(encoded, alphabet: alphabet) == bytes, "\(alphabet) does not round-trip bytes")
        let decoded = bytes.withUnsafeBufferPointer { Base64.decode($0, alphabet: alphabet) }
        if let decoded {
            Property.require(
                Array(Base64.encode(decoded, alphabet: alphabet).utf8) == bytes, "\(alphabet) decodes a second spelling"
            )
        }
        let foundation = foundationDecode(bytes, alphabet: alphabet)
        Property.require(
            decoded == foundation
                || (decoded == nil && Array(Base64.encode(foundation!, alphabet: alphabet).utf8) != bytes),
            "\(alphabet) disagrees with Foundation")
    }
    return 0
}

/// Foundation's decoding of `bytes` in `alphabet`: base64url is translated to standard base64
/// and padded first; padding in base64url is refused, as RFC 7515 section 2 has none.
private func foundationDecode(_ bytes: [UInt8], alphabet: Base64.Alphabet) -> [UInt8]? {
    var text = bytes
    if alphabet == .url {
        guard !bytes.contains(where: { $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "/") })
        else { return nil }
        text = bytes.map {
            $0 == UInt8(ascii: "-") ? UInt8(ascii: "+") : $0 == UInt8(ascii: "_") ? UInt8(ascii: "/") : $0
        }
        text += Array(repeating: UInt8(ascii: "="), count: (4 - text.count % 4) % 4)
    }
    return Data(base64Encoded: Data(text)).map { Array($0) }
}
