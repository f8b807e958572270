// SPDX-License-Identifier: GPL-3.0-or-later
import CZlib
import Foundation

/// A PNG file decoded to its pixels: 8-bit RGB or RGBA, not interlaced, which is what Chromium's
/// screenshots are. zlib inflates the image data; this undoes PNG's per-line filters (RFC 2083,
/// section 6) and checks every chunk's CRC, so a truncated or damaged file is an error, never a
/// picture of something else.
struct PNGImage {
    let width: Int
    let height: Int
    /// Red, green and blue of each pixel, row by row; alpha is dropped.
    let pixels: [UInt8]

    init(contentsOf path: String) throws {
        try self.init(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    init(_ file: [UInt8]) throws {
        guard file.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else {
            throw PNGError.malformed("no PNG signature")
        }
        var offset = 8
        var header: [UInt8] = []
        var compressed: [UInt8] = []
        var ended = false
        while !ended {
            guard offset + 12 <= file.count else { throw PNGError.malformed("the file ends inside a chunk") }
            let length = Int(Self.bigEndian(file, at: offset))
            let typeAndData = Array(file[(offset + 4)..<min(offset + 8 + length, file.count)])
            guard typeAndData.count == length + 4, offset + 12 + length <= file.count else {
                throw PNGError.malformed("the file ends inside a chunk")
            }
            let crc = typeAndData.withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) }
            guard crc == uLong(Self.bigEndian(file, at: offset + 8 + length)) else {
                throw PNGError.malformed("a chunk's CRC does not match")
            }
            let type = String(decoding: typeAndData.prefix(4), as: UTF8.self)
            let data = typeAndData.dropFirst(4)
            switch type {
            case "IHDR": header = Array(data)
            case "IDAT": compressed += data
            case "IEND": ended = true
            default: break
            }
            offset += 12 + length
        }
        guard header.count == 13 else { throw PNGError.malformed("no image header") }
        width = Int(Self.bigEndian(header, at: 0))
        height = Int(Self.bigEndian(header, at: 4))
        let (depth, colour, interlace) = (header[8], header[9], header[12])
        guard depth == 8, colour == 2 || colour == 6, interlace == 0, width > 0, height > 0,
            width <= 16_384, height <= 32_768
        else {
            throw PNGError.unsupported("depth \(depth), colour type \(colour), interlace \(interlace)")
        }
        let channels = colour == 6 ? 4 : 3
        let stride = width * channels
        var raw = [UInt8](repeating: 0, count: height * (stride + 1))
        var size = uLong(raw.count)
        let status = raw.withUnsafeMutableBufferPointer { out in
            compressed.withUnsafeBufferPointer { input in
                uncompress(out.baseAddress, &size, input.baseAddress, uLong(input.count))
            }
        }
        guard status == Z_OK, size == uLong(raw.count) else {
            throw PNGError.malformed("the image data do not inflate")
        }
        pixels = try Self.unfiltered(raw, height: height, stride: stride, channels: channels)
    }

    /// The lines with their filters undone, as RGB.
    private static func unfiltered(_ raw: [UInt8], height: Int, stride: Int, channels: Int) throws -> [UInt8] {
        var image = [UInt8](repeating: 0, count: height * stride)
        var rgb = [UInt8](repeating: 0, count: height * stride / channels * 3)
        try image.withUnsafeMutableBufferPointer { image in
            try raw.withUnsafeBufferPointer { raw in
                for row in 0..<height {
                    let filter = raw[row * (stride + 1)]
                    let input = row * (stride + 1) + 1
                    let line = row * stride
                    let above = line - stride
                    guard filter <= 4 else { throw PNGError.malformed("line \(row) has filter \(filter)") }
                    for index in 0..<stride {
                        let left = index >= channels ? image[line + index - channels] : 0
                        let up = row > 0 ? image[above + index] : 0
                        let upLeft = row > 0 && index >= channels ? image[above + index - channels] : 0
                        let predicted: UInt8
                        switch filter {
                        case 1: predicted = left
                        case 2: predicted = up
                        case 3: predicted = UInt8((Int(left) + Int(up)) / 2)
                        case 4: predicted = paeth(left, up, upLeft)
                        default: predicted = 0
                        }
                        image[line + index] = raw[input + index] &+ predicted
                    }
                }
            }
        }
        image.withUnsafeBufferPointer { image in
            rgb.withUnsafeMutableBufferPointer { rgb in
                var out = 0
                for start in Swift.stride(from: 0, to: image.count, by: channels) {
                    rgb[out] = image[start]
                    rgb[out + 1] = image[start + 1]
                    rgb[out + 2] = image[start + 2]
                    out += 3
                }
            }
        }
        return rgb
    }

    private static func paeth(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> UInt8 {
        let estimate = Int(a) + Int(b) - Int(c)
        let (da, db, dc) = (abs(estimate - Int(a)), abs(estimate - Int(b)), abs(estimate - Int(c)))
        return da <= db && da <= dc ? a : db <= dc ? b : c
    }

    private static func bigEndian(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// The colour of a pixel as `0xRRGGBB`.
    func colour(x: Int, y: Int) -> UInt32 {
        let index = (y * width + x) * 3
        return UInt32(pixels[index]) << 16 | UInt32(pixels[index + 1]) << 8 | UInt32(pixels[index + 2])
    }

    /// How many pixels have each colour.
    var histogram: [UInt32: Int] {
        var counts: [UInt32: Int] = [:]
        for index in Swift.stride(from: 0, to: pixels.count, by: 3) {
            counts[
                UInt32(pixels[index]) << 16 | UInt32(pixels[index + 1]) << 8 | UInt32(pixels[index + 2]), default: 0] +=
                1
        }
        return counts
    }
}

/// A PNG file that could not be decoded.
enum PNGError: Error, CustomStringConvertible {
    case malformed(String)
    case unsupported(String)

    var description: String {
        switch self {
        case .malformed(let reason): "not a whole PNG file: \(reason)"
        case .unsupported(let what): "a PNG this reader does not decode: \(what)"
        }
    }
}
