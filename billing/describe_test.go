package billing

import "testing"

// A description's lead that repeats the contract's id goes; one that only
// mentions it further on, or a longer number holding it, stays whole.
func TestDescriptionBeside(t *testing.T) {
	for _, c := range []struct{ desc, id, source, want string }{
		{"Instance 9007485: 1x A100 SXM4", "9007485", "instance-9007485", "1x A100 SXM4"},
		{"Instance 1041585: 1x A100 SXM4 (serverless worker)", "", "instance-1041585", "1x A100 SXM4 (serverless worker)"},
		{"Serverless endpoint 3671 (whisper-asr)", "", "endpoint-3671", "whisper-asr"},
		{"Volume 45 - checkpoints", "", "volume-45", "checkpoints"},
		{"Instance 90074851: 1x RTX 4090", "", "instance-9007485", "Instance 90074851: 1x RTX 4090"},
		{"copy of the disk of instance 9007485", "", "instance-9007485", "copy of the disk of instance 9007485"},
		{"1x RTX 3090", "", "instance-12", "1x RTX 3090"},
		{"bandwidth", "", "", "bandwidth"},
	} {
		if got := DescriptionBeside(c.desc, c.id, c.source); got != c.want {
			t.Errorf("DescriptionBeside(%q, %q, %q) = %q, want %q", c.desc, c.id, c.source, got, c.want)
		}
	}
}
