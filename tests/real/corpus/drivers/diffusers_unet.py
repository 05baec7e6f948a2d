"""A diffusers UNet2DModel trained with a DDPMScheduler, then sampled with a
DDPMPipeline, written for fastenough's tests in the style of diffusers' own
"Train a diffusion model" tutorial (noise, random timesteps,
noise_scheduler.add_noise, the UNet predicts the noise, MSE, AdamW with a
cosine schedule and warm-up). Not vendored: nobody upstream wrote this file.
A tiny UNet built from a config (no download), random 16x16 "images", CPU.

    python diffusers_unet.py [--steps 20]
"""

import argparse

import torch
import torch.nn.functional as F
from diffusers import DDPMPipeline, DDPMScheduler, UNet2DModel
from diffusers.optimization import get_cosine_schedule_with_warmup


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--batch", type=int, default=8)
    args = ap.parse_args()
    torch.manual_seed(0)
    model = UNet2DModel(
        sample_size=16, in_channels=3, out_channels=3, layers_per_block=1,
        block_out_channels=(32, 64), norm_num_groups=8,
        down_block_types=("DownBlock2D", "AttnDownBlock2D"),
        up_block_types=("AttnUpBlock2D", "UpBlock2D"),
    )
    noise_scheduler = DDPMScheduler(num_train_timesteps=1000)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    lr_scheduler = get_cosine_schedule_with_warmup(optimizer, num_warmup_steps=5,
                                                   num_training_steps=args.steps)
    # A "dataset" of smooth random images in [-1, 1].
    g = torch.Generator().manual_seed(1)
    images = torch.tanh(F.interpolate(torch.randn(64, 3, 4, 4, generator=g), size=16,
                                      mode="bilinear", align_corners=False))
    model.train()
    for step in range(args.steps):
        clean = images[(step * args.batch) % 64:][: args.batch]
        noise = torch.randn(clean.shape)
        timesteps = torch.randint(0, noise_scheduler.config.num_train_timesteps,
                                  (clean.shape[0],), dtype=torch.int64)
        noisy = noise_scheduler.add_noise(clean, noise, timesteps)
        noise_pred = model(noisy, timesteps, return_dict=False)[0]
        loss = F.mse_loss(noise_pred, noise)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        lr_scheduler.step()
        optimizer.zero_grad()
        if step % 5 == 0 or step == args.steps - 1:
            print(f"step {step} loss {loss.item():.4f} lr {lr_scheduler.get_last_lr()[0]:.6f}")
    pipeline = DDPMPipeline(unet=model, scheduler=noise_scheduler)
    pipeline.set_progress_bar_config(disable=True)
    out = pipeline(batch_size=2, generator=torch.Generator().manual_seed(0),
                   num_inference_steps=10, output_type="np").images
    print("samples", out.shape, f"mean {out.mean():.4f}")


if __name__ == "__main__":
    main()
