// SPDX-License-Identifier: GPL-3.0-or-later

/// A fuzz input that a target signs before it verifies it, so that the fuzzer reaches what
/// follows the signature check: the payload models, the identity checks, nested tokens, the
/// ledger.
///
/// An input that starts with a NUL byte is `NUL payload [NUL nested]`: `payload` is signed by
/// `TrustedChain.shared` under the App Store's header, after every `@JWS@` in it is replaced by
/// `nested` signed the same way (a notification's `signedTransactionInfo`). Any other input is
/// the line itself, its signature as the fuzzer left it.
public enum SignedInput {
    /// Where the nested token goes in the payload.
    public static let placeholder = Array("@JWS@".utf8)

    /// The line `input` stands for.
    public static func line(_ input: [UInt8]) -> [UInt8] {
        guard input.first == 0 else { return input }
        let parts = input.dropFirst().split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
        var payload = Array(parts.first ?? [])
        if parts.count == 2 {
            let nested = Array(TrustedChain.shared.sign(Array(parts[1])).utf8)
            payload = replacing(placeholder, with: nested, in: payload)
        }
        return Array(TrustedChain.shared.sign(payload).utf8)
    }

    private static func replacing(_ target: [UInt8], with replacement: [UInt8], in bytes: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index...].starts(with: target) {
                result += replacement
                index += target.count
            } else {
                result.append(bytes[index])
                index += 1
            }
        }
        return result
    }
}
