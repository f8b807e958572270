// SPDX-License-Identifier: GPL-3.0-or-later
internal import FuzzSupport
internal import TipLedgerCore

#if canImport(Glibc)
    internal import Glibc
#endif

/// Set by `Fuzz/run --seeded-crash` alone: the reader then nests without limit, so the seeded
/// input of 30,000 `[` overflows the stack, proving the harness reports such a crash.
private let unboundedDepth = getenv("TIPLEDGER_FUZZ_UNBOUNDED_DEPTH") != nil

/// The JSON reader alone.
///
/// Properties: it agrees with Foundation's `JSONSerialization` on what is JSON, but for its
/// deliberate differences (`FoundationJSON.isDeliberateDifference`), and on the value read; it
/// reads the same from text as from bytes; what it accepts is UTF-8.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if unboundedDepth {
        _ = try? JSONParser.parse(bytes, maximumDepth: .max)
        return 0
    }
    let ours = Result { () throws(JSONSyntaxError) in try JSONParser.parse(bytes) }
    let foundation = FoundationJSON.value(bytes)
    switch (ours, foundation) {
    case (.success(let value), let other?):
        Property.require(FoundationJSON.matches(value, other), "Foundation reads another value: \(value) and \(other)")
    case (.success(let value), nil):
        Property.require(false, "accepted what Foundation refuses: \(value)")
    case (.failure(let error), _?):
        Property.require(
            FoundationJSON.isDeliberateDifference(error, in: bytes), "refused what Foundation accepts: \(error)")
    case (.failure, nil):
        break
    }
    if case .success = ours {
        Property.require(String(validating: bytes, as: UTF8.self) != nil, "accepted bytes that are not UTF-8")
    }
    if let text = String(validating: bytes, as: UTF8.self) {
        switch (Result { () throws(JSONSyntaxError) in try JSONParser.parse(text) }, ours) {
        case (.success(let fromText), .success(let fromBytes)):
            Property.require(fromText.isIdentical(to: fromBytes), "text and bytes read differently")
        case (.failure(let fromText), .failure(let fromBytes)):
            Property.require(fromText == fromBytes, "text and bytes are refused differently")
        default:
            Property.require(false, "text and bytes read differently")
        }
    }
    return 0
}
