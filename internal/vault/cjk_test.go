package vault

import "testing"

func TestCJKPairs(t *testing.T) {
	tests := []struct{ give, want string }{
		{"", ""},
		{"plain text", "plain text"},
		{"東", " 東"},
		{"東京", " 東京 京"},
		{"東京で喫茶", " 東京 京で で喫 喫茶 茶"},
		{"喫茶店めぐり", " 喫茶 茶店 店め めぐ ぐり り"},
		{"Obsidian同步设置", "Obsidian 同步 步设 设置 置"},
		{"东京。喫茶", " 东京 京 。 喫茶 茶"},
		{"コーヒー", " コー ーヒ ヒー ー"},
		{"한국어 text", "한국어 text"},
	}
	for _, tt := range tests {
		if got := CJKPairs(tt.give); got != tt.want {
			t.Errorf("CJKPairs(%q) = %q; want %q", tt.give, got, tt.want)
		}
	}
}
