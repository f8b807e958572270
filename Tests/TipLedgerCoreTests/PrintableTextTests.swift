// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCore

/// What may not reach a terminal, a log line or JSON as it is, and how it is written instead.
@Suite struct PrintableTextTests {
    /// One scalar of each kind that acts on the display instead of showing: NUL, ESC, line feed,
    /// carriage return, tab, the last C0 control, DEL, the first and last C1 controls and CSI,
    /// the line and paragraph separators, a right-to-left override and a first-strong isolate.
    static let unsafe: [UInt32] = [
        0x00, 0x1b, 0x0a, 0x0d, 0x09, 0x1f, 0x7f, 0x80, 0x9b, 0x9f, 0x2028, 0x2029, 0x202e, 0x2068,
    ]

    @Test(arguments: unsafe)
    func anUnsafeScalarIsWrittenAsItsCodePoint(_ value: UInt32) throws {
        let scalar = try #require(Unicode.Scalar(value))
        let text = "a" + String(Character(scalar)) + "b"

        let escaped = PrintableText.escaped(text)

        #expect(escaped == "a\\u{\(String(value, radix: 16, uppercase: true))}b")
        #expect(!escaped.unicodeScalars.contains { PrintableText.isUnsafe($0) })
    }

    /// Letters of any script, symbols, emoji and a backslash show as they are: only what acts
    /// on the display is escaped.
    @Test(arguments: [
        "com.example.tips.small", "café", "€ 4,99", "日本円", "👍🏽", #"C:\tips"#, " ", "\u{A0}", "\u{2027}", "\u{202F}",
        "\u{2065}", "\u{206A}",
    ])
    func printableTextIsLeftAsItIs(_ text: String) {
        #expect(PrintableText.escaped(text) == text)
    }

    @Test func spacesAreEscapedOnlyWhenAsked() {
        #expect(PrintableText.escaped("a b\n") == #"a b\u{A}"#)
        #expect(PrintableText.escaped("a b\n", escapingSpaces: true) == #"a\u{20}b\u{A}"#)
    }

    /// JSON writes every scalar the terminal escaper escapes as `\uXXXX` (the short forms for
    /// line feed, carriage return and tab), so a JSON line printed on a terminal cannot drive
    /// it either, and reads back as the same text.
    @Test(arguments: unsafe)
    func jsonEscapesTheSameScalars(_ value: UInt32) throws {
        let scalar = try #require(Unicode.Scalar(value))
        let text = "a" + String(Character(scalar)) + "b"
        var writer = JSONWriter()
        writer.object { $0.field("productId", text) }

        let short: [UInt32: String] = [0x0a: #"\n"#, 0x0d: #"\r"#, 0x09: #"\t"#]
        let hex = String(value, radix: 16)
        let escape = short[value] ?? #"\u"# + String(repeating: "0", count: 4 - hex.count) + hex
        #expect(writer.text == #"{"productId":"a"# + escape + #"b"}"#)
        #expect(try JSONParser.parse(writer.text).objectValue?["productId"] == .string(text))
    }

    /// Text that needs no escaping is written as it is, whatever its script.
    @Test func jsonWritesOtherTextAsItIs() throws {
        let text = "café € 日本円 👍🏽 \u{2027} \u{A0}"
        var writer = JSONWriter()
        writer.object { $0.field("productId", text) }

        #expect(writer.text == #"{"productId":""# + text + #""}"#)
    }
}
