package demoserver

import (
	"cmp"
	"slices"
	"strconv"
	"time"
)

// rng is splitmix64. It is written out here instead of taken from math/rand
// so the generated data cannot change under a Go upgrade: the same seed must
// give the same bytes forever, since tests and screenshots depend on it.
type rng struct{ s uint64 }

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }

// skew returns u^k scaled to [0, 2^32) for a uniform u in [0,1). Integer
// arithmetic only, so results do not depend on the platform's floating point.
func (r *rng) skew(k int) uint64 {
	u := r.next() >> 32
	f := u
	for i := 1; i < k; i++ {
		f = f * u >> 32
	}
	return f
}

// scale maps a skew value onto [0, max).
func scale(max int64, f uint64) int64 { return int64(uint64(max) * f >> 32) }

const (
	kindInstance uint8 = 1 << iota
	kindVolume
	kindServerless
	kindAll = kindInstance | kindVolume | kindServerless
)

const (
	itemGPU uint8 = iota
	itemDisk
	itemBWD
	itemBWU
)

var itemTypes = [...]string{"gpu", "disk", "bwd", "bwu"}

// item is one line of a contract's breakdown. qty is in thousandths of the
// unit (hours, GB-hours, GB), rate in millionths of a dollar per unit, amount
// in thousandths of a dollar: amount = round(qty*rate/1e6).
type item struct {
	typ    uint8
	qty    int64
	rate   int64
	amount int64
}

// contract is the compact internal form; strings are built only when a
// contract is served, which keeps generation of 100k contracts fast and small.
type contract struct {
	start, end int64
	id         int64
	amount     int64
	template   int64 // 0: none
	label      int16 // index into labels; -1: none
	ep, wg     int16 // indexes into endpoints / groups; -1: not serverless
	kind       uint8
	gpu        uint8
	gpus       uint8
	nitems     uint8
	diskGB     int32
	items      [4]item
}

type gpuModel struct {
	name string
	rate int64 // µ$ per GPU-hour
}

var gpuModels = [...]gpuModel{
	{"RTX 3090", 180000}, {"RTX 4090", 389000}, {"RTX 5090", 690000},
	{"RTX A6000", 450000}, {"L40S", 790000}, {"A100 SXM4", 1100000},
	{"H100 SXM", 2200000}, {"Tesla V100", 250000},
}

// gpuWeights biases the model choice towards the cheap consumer cards most
// renters use.
var gpuWeights = [...]int{22, 30, 10, 10, 8, 10, 5, 5}

var instanceLabels = [...]string{
	"llama-finetune", "sd-xl batch", "whisper-large transcribe", "vllm llama3-70b",
	"comfyui", "jupyter scratch", "kohya lora", "mistral-7b eval", "訓練 🚀",
	"推論サーバー", "모델 학습", "🔥 overnight run", "données-entraînement",
	"👩‍🔬 lab notebook", "flux.1-dev renders",
	"a rather long label that keeps going to see how narrow terminals cope with it",
}

var volumeLabels = [...]string{"datasets", "checkpoints 🗂", "hf-cache"}

var workerLabels = [...]string{"autoscaled worker", "warm pool"}

var templateIDs = [...]int64{41927, 52344, 60011, 73520, 88112, 90213, 101567}

var endpointNames = [...]string{"llama3-70b-vllm", "sdxl-turbo", "whisper-asr", "embeddings-bge"}

type endpoint struct {
	id   int64
	name string
}

type group struct {
	id   int64
	ep   int16
	name string
}

// dataset is immutable once built; handlers read it without locks.
type dataset struct {
	now       int64
	hostile   bool
	cs        []contract // sorted ascending by (start, id)
	maxDur    int64
	endpoints []endpoint
	groups    []group
	labels    []string // all label texts (hostile variants in hostile mode)
	credit    int64
	userID    int64
	// fixtures are the leak fixtures by contract id (Options.Leaks); nil
	// without them.
	fixtures map[int64]*fixture
}

func generate(seed uint64, n int, now time.Time, span time.Duration, hostile, leaks bool) *dataset {
	r := &rng{s: seed}
	d := &dataset{now: now.Unix(), hostile: hostile}
	d.userID = 200000 + int64(seed%700000)
	spanSec := int64(span / time.Second)
	if spanSec < 3600 {
		spanSec = 3600
	}
	// Keeps the integer skew arithmetic far from overflow.
	spanSec = min(spanSec, 30*365*86400)

	// Labels: one table for all kinds; per-kind ranges are remembered by
	// offset so a contract stores only an index.
	var labels []string
	labels = append(labels, instanceLabels[:]...)
	volOff := len(labels)
	labels = append(labels, volumeLabels[:]...)
	wrkOff := len(labels)
	labels = append(labels, workerLabels[:]...)
	if hostile {
		for i, l := range labels {
			labels[i] = hostileLabel(l, i)
		}
	}
	d.labels = labels

	epID := int64(3100)
	wgID := int64(7000)
	for i, name := range endpointNames {
		epID += 1 + int64(r.intn(300))
		d.endpoints = append(d.endpoints, endpoint{id: epID, name: name})
		for k := 0; k < 1+r.intn(3); k++ {
			wgID += 1 + int64(r.intn(200))
			m := gpuModels[r.intn(len(gpuModels))].name
			d.groups = append(d.groups, group{id: wgID, ep: int16(i), name: m + " pool"})
		}
	}

	cs := make([]contract, n)
	for i := range cs {
		c := &cs[i]
		c.id = int64(i) // generation order, the tie-break while sorting
		c.label, c.ep, c.wg = -1, -1, -1
		// Half the contracts at age span*u², half uniform: recent weeks are
		// several times denser than old ones, old months are not empty.
		age := scale(spanSec, r.skew(1+r.intn(2)))
		c.start = d.now - age
		var dur int64
		var running bool
		switch k := r.intn(100); {
		case k < 62:
			c.kind = kindInstance
			dur = 600 + scale(3*86400, r.skew(5))
			running = age < 2*86400 && r.intn(100) < 30
		case k < 80:
			c.kind = kindServerless
			dur = 300 + scale(18*3600, r.skew(3))
			running = age < 6*3600 && r.intn(100) < 40
		default:
			c.kind = kindVolume
			dur = 86400 + scale(60*86400, r.skew(2))
			running = age < 20*86400 && r.intn(100) < 50
		}
		c.end = min(c.start+dur, d.now)
		if running {
			c.end = d.now
		}
		d.fill(r, c, volOff, wrkOff)
	}
	slices.SortFunc(cs, func(a, b contract) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.id, b.id))
	})
	// IDs grow with time like real contract ids; assigning them after the
	// sort makes (start, id) order and id order agree.
	id := int64(1_000_000)
	for i := range cs {
		id += 1 + int64(r.intn(40))
		cs[i].id = id
		d.maxDur = max(d.maxDur, cs[i].end-cs[i].start)
	}
	d.cs = cs
	d.credit = d.pickCredit(r)
	if leaks {
		// After everything drawn: the generated data is the same with
		// or without them.
		d.addLeaks()
	}
	return d
}

// fill draws the metadata and items of c.
func (d *dataset) fill(r *rng, c *contract, volOff, wrkOff int) {
	dur := c.end - c.start
	if c.kind == kindVolume {
		c.diskGB = [...]int32{20, 50, 100, 100, 200, 500}[r.intn(6)]
		rate := 60 + int64(r.intn(80))
		c.items[0] = mkItem(itemDisk, int64(c.diskGB)*dur*1000/3600, rate)
		c.nitems = 1
		if r.intn(100) < 10 {
			c.label = int16(volOff + r.intn(len(volumeLabels)))
		}
		c.amount = c.items[0].amount
		return
	}
	w := r.intn(100)
	for i, gw := range gpuWeights {
		if w < gw {
			c.gpu = uint8(i)
			break
		}
		w -= gw
	}
	c.gpus = [...]uint8{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 8}[r.intn(20)]
	c.diskGB = [...]int32{16, 32, 50, 64, 100, 128, 200, 256, 500}[r.intn(9)]
	if r.intn(100) < 45 {
		c.template = templateIDs[r.intn(len(templateIDs))]
	}
	active := int64(100)
	if c.kind == kindServerless {
		g := r.intn(len(d.groups))
		c.wg = int16(g)
		c.ep = d.groups[g].ep
		if r.intn(100) < 15 {
			c.label = int16(wrkOff + r.intn(len(workerLabels)))
		}
	} else {
		active = 60 + int64(r.intn(41)) // stopped time costs disk, not GPU
		if r.intn(100) < 55 {
			c.label = int16(r.intn(len(instanceLabels)))
		}
	}
	gpuRate := int64(c.gpus) * gpuModels[c.gpu].rate * (90 + int64(r.intn(21))) / 100 / 1000 * 1000
	diskRate := 60 + int64(r.intn(140))
	bwRates := [...]int64{0, 1000, 2000, 5000, 10000, 20000}
	bwdQty := int64(0)
	if r.intn(100) >= 25 {
		bwdQty = scale(200_000, r.skew(2))
	}
	bwuQty := int64(0)
	if r.intn(100) >= 50 {
		bwuQty = scale(50_000, r.skew(3))
	}
	gpuQty := dur * 1000 * active / 100 / 3600
	diskQty := int64(c.diskGB) * dur * 1000 / 3600
	if c.kind == kindInstance && r.intn(100) < 3 {
		// Created but never started: every line is zero.
		gpuQty, diskQty, bwdQty, bwuQty = 0, 0, 0, 0
	}
	c.items[0] = mkItem(itemGPU, gpuQty, gpuRate)
	c.items[1] = mkItem(itemDisk, diskQty, diskRate)
	c.items[2] = mkItem(itemBWD, bwdQty, bwRates[r.intn(len(bwRates))])
	c.items[3] = mkItem(itemBWU, bwuQty, bwRates[r.intn(len(bwRates))])
	c.nitems = 4
	for _, it := range c.items {
		c.amount += it.amount
	}
}

func mkItem(typ uint8, qty, rate int64) item {
	return item{typ: typ, qty: qty, rate: rate, amount: (qty*rate + 500_000) / 1_000_000}
}

// pickCredit makes the credit last about two and a half weeks at the spend
// of the last seven days (each contract pro-rated to its overlap with them),
// so the dashboard's runway estimate shows something plausible.
func (d *dataset) pickCredit(r *rng) int64 {
	from := d.now - 7*86400
	var spend int64
	for i := range d.cs {
		c := &d.cs[i]
		if c.end < from {
			continue
		}
		if c.end == c.start {
			spend += c.amount
			continue
		}
		ov := c.end - max(c.start, from)
		spend += c.amount * ov / (c.end - c.start)
	}
	credit := spend * 5 / 2
	credit = credit - credit%1000 + int64(r.intn(1000))
	if credit < 25_000 {
		credit = 412_386
	}
	return credit
}

// matches returns the indexes (ascending, so in (start, id) order) of the
// contracts overlapping [gte, lte] whose kind is in mask.
func (d *dataset) matches(gte, lte int64, mask uint8) []int32 {
	cs := d.cs
	// Contracts starting after lte cannot overlap; contracts starting more
	// than maxDur before gte end before it. Binary search both bounds so a
	// narrow day range only touches its neighbourhood.
	hi, _ := slices.BinarySearchFunc(cs, lte, func(c contract, t int64) int {
		if c.start <= t {
			return -1
		}
		return 1
	})
	lowStart := gte - d.maxDur
	if lowStart > gte { // overflow
		lowStart = gte
	}
	lo, _ := slices.BinarySearchFunc(cs, lowStart, func(c contract, t int64) int {
		if c.start < t {
			return -1
		}
		return 1
	})
	var out []int32
	for i := lo; i < hi; i++ {
		if cs[i].end >= gte && cs[i].kind&mask != 0 {
			out = append(out, int32(i))
		}
	}
	return out
}

// contractDesc is the human-readable description of a contract.
func (d *dataset) contractDesc(c *contract) string {
	var s string
	switch c.kind {
	case kindVolume:
		s = "Volume " + strconv.FormatInt(c.id, 10) + ": " + strconv.Itoa(int(c.diskGB)) + " GB storage"
	case kindServerless:
		s = "Instance " + strconv.FormatInt(c.id, 10) + ": " + strconv.Itoa(int(c.gpus)) + "x " + gpuModels[c.gpu].name + " (serverless worker)"
	default:
		s = "Instance " + strconv.FormatInt(c.id, 10) + ": " + strconv.Itoa(int(c.gpus)) + "x " + gpuModels[c.gpu].name
	}
	if d.hostile {
		s = hostile(s, c.id)
	}
	return s
}

func (d *dataset) itemDesc(c *contract, it *item) string {
	var unit string
	switch it.typ {
	case itemGPU:
		unit = " hours at $%s/hour"
	case itemDisk:
		unit = " GB-hours at $%s/GB-hour"
	default:
		unit = " GB at $%s/GB"
	}
	b := make([]byte, 0, 48)
	b = appendQty(b, it.qty)
	for i := 0; i < len(unit); i++ {
		if unit[i] == '%' {
			b = appendRate(b, it.rate)
			i++
			continue
		}
		b = append(b, unit[i])
	}
	s := string(b)
	if d.hostile {
		s = hostile(s, c.id+int64(it.typ))
	}
	return s
}

func (d *dataset) epDesc(e int16) string {
	ep := d.endpoints[e]
	s := "Serverless endpoint " + strconv.FormatInt(ep.id, 10) + " (" + ep.name + ")"
	if d.hostile {
		s = hostile(s, ep.id)
	}
	return s
}

func (d *dataset) wgDesc(g int16) string {
	wg := d.groups[g]
	s := "Workergroup " + strconv.FormatInt(wg.id, 10) + " (" + wg.name + ")"
	if d.hostile {
		s = hostile(s, wg.id)
	}
	return s
}

// appendQty writes thousandths as "1,200.000".
func appendQty(b []byte, m int64) []byte {
	if m < 0 {
		b = append(b, '-')
		m = -m
	}
	whole := strconv.FormatInt(m/1000, 10)
	for i := 0; i < len(whole); i++ {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, whole[i])
	}
	f := m % 1000
	return append(b, '.', byte('0'+f/100), byte('0'+f/10%10), byte('0'+f%10))
}

// appendRate writes millionths of a dollar with 3 decimals when that is exact
// ("0.389") and 6 otherwise ("0.000139").
func appendRate(b []byte, u int64) []byte {
	b = strconv.AppendInt(b, u/1_000_000, 10)
	b = append(b, '.')
	f := strconv.FormatInt(u%1_000_000+1_000_000, 10)[1:]
	if u%1000 == 0 {
		f = f[:3]
	}
	return append(b, f...)
}
