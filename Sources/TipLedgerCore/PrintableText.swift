// SPDX-License-Identifier: GPL-3.0-or-later

/// Text made safe to show a person: on a terminal, in a log line, in a spreadsheet cell.
///
/// Signed fields (a `productId`, a `currency`) are whatever the signer wrote, and a trusted
/// chain includes test chains and Xcode certificates: printed as they came, an ESC could drive
/// the reader's terminal, a line feed forge a log line, a bidirectional override reorder what
/// is shown. Every text output escapes what `isUnsafe` names; JSON escapes the same scalars
/// its own way (`JSONWriter`).
public enum PrintableText {
    /// Whether `scalar` acts on the display rather than showing: the C0 controls, DEL, the C1
    /// controls (U+0080–U+009F, which some terminals obey as CSI and OSC), the line and
    /// paragraph separators (U+2028, U+2029) and the bidirectional embeddings, overrides
    /// (U+202A–U+202E) and isolates (U+2066–U+2069).
    package static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7f...0x9f, 0x2028...0x202e, 0x2066...0x2069: true
        default: false
        }
    }

    /// Whether a UTF-8 byte may start an unsafe scalar: a control or DEL, or the lead byte of
    /// the C1 controls (0xC2) or of the separators and bidirectional controls (0xE2). A text
    /// without any is safe as it is, which a scan of its bytes finds out quickly.
    static func mayStartUnsafe(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == 0x7f || byte == 0xc2 || byte == 0xe2
    }

    /// `text` with each unsafe scalar written as its code point, `\u{1B}`; with `escapingSpaces`
    /// a space too (`\u{20}`), for a field of a line whose fields are separated by spaces.
    /// Returns `text` itself when nothing needs escaping.
    public static func escaped(_ text: String, escapingSpaces: Bool = false) -> String {
        let mayNeed = text.utf8.contains { mayStartUnsafe($0) || (escapingSpaces && $0 == 0x20) }
        guard mayNeed else { return text }
        var result = ""
        result.unicodeScalars.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) || (escapingSpaces && scalar == " ") {
                result += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
