/// The image as level-shifted float planes padded to whole MCUs by repeating the edge: Y at full
/// size, Cb and Cr averaged over 2x2 when subsampling.
struct JPEGEncoderPlanes {
    var luma: [Float]
    var cb: [Float] = []
    var cr: [Float] = []
    let lumaWidth: Int
    let lumaHeight: Int
    let chromaWidth: Int
    let chromaHeight: Int

    init(_ image: RasterImage, subsample: Bool) {
        let mcu = subsample ? 16 : 8
        lumaWidth = (image.width + mcu - 1) / mcu * mcu
        lumaHeight = (image.height + mcu - 1) / mcu * mcu
        chromaWidth = subsample ? lumaWidth / 2 : 0
        chromaHeight = subsample ? lumaHeight / 2 : 0
        let w = image.width, h = image.height, n = image.channels
        let lw = lumaWidth, lh = lumaHeight
        var luma = [Float](repeating: 0, count: lw * lh)
        var fullCb = [Float](repeating: 0, count: subsample ? lw * lh : 0)
        var fullCr = fullCb
        image.pixels.withUnsafeBufferPointer { src in
            luma.withUnsafeMutableBufferPointer { y in
                fullCb.withUnsafeMutableBufferPointer { cbOut in
                    fullCr.withUnsafeMutableBufferPointer { crOut in
                        for row in 0..<lh {
                            let sy = min(row, h - 1)
                            for col in 0..<lw {
                                let p = src.baseAddress! + (sy * w + min(col, w - 1)) * n
                                var r: Float, g: Float, b: Float
                                switch n {
                                case 1: (r, g, b) = (Float(p[0]), Float(p[0]), Float(p[0]))
                                case 2:
                                    let a = Float(p[1]) / 255
                                    let v = Float(p[0]) * a + 255 * (1 - a)
                                    (r, g, b) = (v, v, v)
                                case 3: (r, g, b) = (Float(p[0]), Float(p[1]), Float(p[2]))
                                default:
                                    let a = Float(p[3]) / 255
                                    r = Float(p[0]) * a + 255 * (1 - a)
                                    g = Float(p[1]) * a + 255 * (1 - a)
                                    b = Float(p[2]) * a + 255 * (1 - a)
                                }
                                let i = row * lw + col
                                y[i] = 0.299 * r + 0.587 * g + 0.114 * b - 128
                                if subsample {
                                    cbOut[i] = -0.168736 * r - 0.331264 * g + 0.5 * b
                                    crOut[i] = 0.5 * r - 0.418688 * g - 0.081312 * b
                                }
                            }
                        }
                    }
                }
            }
        }
        self.luma = luma
        if subsample {
            let cw = chromaWidth, ch = chromaHeight
            func halve(_ full: [Float]) -> [Float] {
                var half = [Float](repeating: 0, count: cw * ch)
                for row in 0..<ch {
                    for col in 0..<cw {
                        let i = 2 * row * lw + 2 * col
                        half[row * cw + col] = (full[i] + full[i + 1] + full[i + lw] + full[i + lw + 1]) * 0.25
                    }
                }
                return half
            }
            cb = halve(fullCb)
            cr = halve(fullCr)
        }
    }
}
